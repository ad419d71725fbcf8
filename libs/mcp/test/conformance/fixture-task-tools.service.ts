import { Injectable } from '@nestjs/common';
import {
  InputRequests,
  McpArg,
  McpContext,
  McpInputs,
  McpTool,
  McpToolResult,
  type McpCallContext,
  type McpInputRound,
} from '@kobana/nest-mcp';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { type FixtureJob, FixtureTaskStore } from './fixture-task-store.js';

type JsonObject = Record<string, unknown>;
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
const text = (value: string, isError = false): JsonObject => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError: true } : {}),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tools the Tasks extension scenarios (SEP-2663) call; names and behaviours fixed by the suite.
 * A task tool starts its job in the fixture's task store and returns `{ jobId }`; libs/mcp turns
 * that into the task (and answers synchronously a client that did not declare the extension).
 */
@Injectable()
export class FixtureTaskToolsService {
  constructor(private readonly store: FixtureTaskStore) {}

  @McpTool({ name: 'greet', description: 'Greets someone (synchronous only).' })
  greet(@McpArg('name', { validators: [IsString()] }) name: string) {
    return McpToolResult.text(`Hello, ${name}!`);
  }

  @McpTool({
    name: 'slow_compute',
    description: 'Sleeps for `seconds`, then answers; a task when the client takes one.',
    task: 'optional',
  })
  async slowCompute(
    @McpArg('seconds', { validators: [IsInt(), Min(0), Max(600)] }) seconds: number,
    @McpContext() context: McpCallContext,
    @McpArg('label', { required: false, validators: [IsOptional(), IsString()] }) label?: string,
  ) {
    const answer = text(`Computed ${label ?? 'result'} after ${seconds} s`);
    if (!context.task) {
      await sleep(seconds * 1000);
      return new McpToolResult(answer.content as never);
    }
    const job = this.store.begin();
    const timer = setTimeout(() => this.store.finish(job, { result: answer }), seconds * 1000);
    job.onCancel = () => clearTimeout(timer);
    return { jobId: job.id };
  }

  @McpTool({ name: 'failing_job', description: 'Always ends with a tool error, as a task.', task: 'required' })
  failingJob() {
    const job = this.store.begin();
    const timer = setTimeout(
      () => this.store.finish(job, { result: text('The job failed: nothing to process', true) }),
      500,
    );
    job.onCancel = () => clearTimeout(timer);
    return { jobId: job.id };
  }

  @McpTool({
    name: 'protocol_error_job',
    description: 'Always ends with a JSON-RPC error, as a task.',
    task: 'required',
  })
  protocolErrorJob() {
    const job = this.store.begin();
    const timer = setTimeout(
      () => this.store.finish(job, { error: { code: -32603, message: 'Internal error: the job crashed' } }),
      300,
    );
    job.onCancel = () => clearTimeout(timer);
    return { jobId: job.id };
  }

  @McpTool({
    name: 'confirm_delete',
    description: 'Asks for confirmation during the task, then deletes (pretends to).',
    task: 'required',
  })
  confirmDelete(@McpArg('filename', { validators: [IsString()] }) filename: string) {
    const job = this.store.begin('input_required');
    this.store.ask(
      job,
      { [`confirm-${job.id}`]: InputRequests.form(`Delete ${filename}?`, CONFIRM) as never },
      (j, inputs, keys) => {
        const answer = inputs.elicitation(keys[0]!, CONFIRM);
        if (!answer) return;
        this.store.satisfy(j, keys);
        const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
        this.store.finish(j, { result: text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`) });
      },
    );
    return { jobId: job.id };
  }

  @McpTool({ name: 'multi_input', description: 'Asks two questions at once during the task.', task: 'required' })
  multiInput() {
    const job = this.store.begin('input_required');
    const got: string[] = [];
    const requests = {
      [`name-${job.id}`]: InputRequests.form('Your name?', NAME),
      [`confirm-${job.id}`]: InputRequests.form('Go ahead?', CONFIRM),
    };
    this.store.ask(job, requests as never, (j: FixtureJob, inputs, keys) => {
      const valid = keys.filter((key) => inputs.elicitation(key) !== undefined);
      for (const key of valid) got.push(String(inputs.elicitation(key)?.content?.name ?? key));
      this.store.satisfy(j, valid);
      if (j.status === 'working') this.store.finish(j, { result: text(`Received ${got.join(' and ')}`) });
    });
    return { jobId: job.id };
  }

  @McpTool({
    name: 'test_tool_with_task',
    description: 'Asks a name over MRTR, then continues as a task.',
    task: 'required',
  })
  withTask(@McpInputs() inputs: McpInputRound) {
    const answer = inputs.elicitation('user_name', NAME);
    if (!answer) inputs.require({ user_name: InputRequests.form('What is your name?', NAME) });
    const name = answer?.action === 'accept' ? String(answer.content?.name) : 'stranger';
    const job = this.store.begin();
    const timer = setTimeout(() => this.store.finish(job, { result: text(`Hello, ${name}!`) }), 100);
    job.onCancel = () => clearTimeout(timer);
    return { jobId: job.id };
  }
}
