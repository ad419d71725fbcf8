import { EnvelopeOf, Int, Nested, Text, Texts } from '../common/response-fields.js';

export class PlanResponse {
  @Text()
  name: string;

  @Int()
  monthly_budget: number;

  @Int()
  max_concurrent_executions: number;
}

export class OrganizationResponse {
  @Text()
  id: string;

  @Text()
  slug: string;

  @Nested(() => PlanResponse)
  plan: PlanResponse;
}

export class MeMemberResponse {
  @Text()
  id: string;

  @Text()
  email: string;

  @Text()
  name: string;

  @Text('The role of this token')
  role: string;
}

export class MeResponse {
  @Nested(() => OrganizationResponse)
  organization: OrganizationResponse;

  @Nested(() => MeMemberResponse)
  member: MeMemberResponse;

  @Texts('The scopes of this token')
  scopes: string[];
}

export class UsageResponse {
  @Text('The month, YYYY-MM')
  period: string;

  @Int()
  spent: number;

  @Int()
  monthly_budget: number;

  @Int()
  remaining: number;

  @Int({ description: 'Executions this month' })
  executions: number;

  @Int({ description: 'Queued or running now' })
  active_executions: number;

  @Int()
  max_concurrent_executions: number;
}

export const MeEnvelope = EnvelopeOf(MeResponse, 'MeEnvelope');
export const UsageEnvelope = EnvelopeOf(UsageResponse, 'UsageEnvelope');
