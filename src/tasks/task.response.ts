import {
  EnvelopeOf,
  Int,
  ListOf,
  Nested,
  NullableObject,
  OneOf,
  PageOf,
  Text,
  Texts,
  Time,
} from '../common/response-fields.js';

/** What the API and the kadu_tasks_* tools answer for a task (taskView). */
export class LaunchPolicyResponse {
  @Texts('Roles that may run the task')
  roles: string[];

  @Texts('Members that may run the task, whatever their role')
  member_ids: string[];
}

export class DestinationResponse {
  @OneOf(['webhook'])
  type: 'webhook';

  @Text()
  webhook_id: string;
}

export class TaskResponse {
  @Text()
  id: string;

  @Text()
  name: string;

  @Text()
  description: string;

  @Text('What runs it (echo, …)')
  kind: string;

  @Text()
  instructions: string;

  @NullableObject('The JSON Schema the input of a run must match, if any')
  input_schema: Record<string, unknown> | null;

  @Int({ description: 'Most a run may spend', minimum: 0 })
  cost_cap: number;

  @Nested(() => LaunchPolicyResponse)
  launch_policy: LaunchPolicyResponse;

  @ListOf(() => DestinationResponse)
  destinations: DestinationResponse[];

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

export const TaskEnvelope = EnvelopeOf(TaskResponse, 'TaskEnvelope');
export const TaskPage = PageOf(TaskResponse, 'TaskPage');
