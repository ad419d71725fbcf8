import { TOOL_CALL, ToolCallPipeline, type ToolCallSteps } from './tool-call.pipeline.js';
import { ToolInvoker } from './tool-invoker.js';

/**
 * The order of a tools/call's steps is behaviour: which refusal a wrong call meets first, that
 * nothing is asked of a person before the arguments and the preflight passed, that a task is made
 * only once every input round completed. Moving a step is a decision, made here as well.
 */
describe('the tools/call pipeline (TOOL_CALL)', () => {
  it('runs its steps in this order', () => {
    expect(TOOL_CALL.map((step) => step.name)).toEqual([
      'resolve',
      'authorize',
      'arguments',
      'mode',
      'round',
      'bind',
      'preflight',
      'confirm',
      'invoke',
      'task',
      'present',
    ]);
  });

  it('answers the refusals before the method at the dispatcher, and what the tool run throws at the tool', () => {
    expect(TOOL_CALL.map((step) => `${step.name}:${step.answeredAt}`)).toEqual([
      'resolve:method',
      'authorize:method',
      'arguments:method',
      'mode:method',
      'round:method',
      'bind:tool',
      'preflight:tool',
      'confirm:tool',
      'invoke:tool',
      'task:tool',
      'present:tool',
    ]);
  });

  it('is run by ToolInvoker, one method per step, in the declared order', async () => {
    for (const step of TOOL_CALL) expect(typeof ToolInvoker.prototype[step.name], step.name).toBe('function');
    const ran: string[] = [];
    const steps = Object.fromEntries(
      TOOL_CALL.map((step) => [step.name, () => void ran.push(step.name)]),
    ) as unknown as ToolCallSteps;
    const pipeline = new ToolCallPipeline(steps, () => ({}));
    await pipeline.run({} as never).catch(() => undefined);
    expect(ran).toEqual(TOOL_CALL.map((step) => step.name));
  });
});
