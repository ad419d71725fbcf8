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
    await Promise.resolve()
      .then(() => pipeline.run({} as never))
      .catch(() => undefined);
    expect(ran).toEqual(TOOL_CALL.map((step) => step.name));
  });

  // Issue 32, sixth pass: a call whose steps all answer in the same tick is answered without a
  // promise; a step that waits makes the answer a promise, and the same steps run after it.
  const stepsThat = (wait: Partial<Record<string, 'wait' | 'throw'>>, ran: string[]) =>
    Object.fromEntries(
      TOOL_CALL.map((step) => [
        step.name,
        (c: { result?: unknown }) => {
          ran.push(step.name);
          if (wait[step.name] === 'throw') throw new Error(`${step.name} failed`);
          if (step.name === 'present') c.result = { answered: true };
          return wait[step.name] === 'wait' ? Promise.resolve() : undefined;
        },
      ]),
    ) as unknown as ToolCallSteps;
  const failure = (thrown: unknown) => ({ failed: (thrown as Error).message });

  it('answers in the same tick when no step waits, and after the wait when one does', async () => {
    const now: string[] = [];
    expect(new ToolCallPipeline(stepsThat({}, now), failure).run({} as never)).toEqual({ answered: true });
    for (const waiting of ['round', 'bind', 'invoke']) {
      const ran: string[] = [];
      const answer = new ToolCallPipeline(stepsThat({ [waiting]: 'wait' }, ran), failure).run({} as never);
      expect(answer, waiting).toBeInstanceOf(Promise);
      await expect(answer).resolves.toEqual({ answered: true });
      expect(ran, waiting).toEqual(now);
    }
  });

  it('throws what a method step throws, and answers what a tool step throws through failure, waiting or not', async () => {
    const ran: string[] = [];
    expect(() => new ToolCallPipeline(stepsThat({ authorize: 'throw' }, ran), failure).run({} as never)).toThrow(
      'authorize failed',
    );
    await expect(
      new ToolCallPipeline(stepsThat({ resolve: 'wait', mode: 'throw' }, []), failure).run({} as never),
    ).rejects.toThrow('mode failed');
    expect(new ToolCallPipeline(stepsThat({ invoke: 'throw' }, []), failure).run({} as never)).toEqual({
      failed: 'invoke failed',
    });
    await expect(
      new ToolCallPipeline(stepsThat({ bind: 'wait', present: 'throw' }, []), failure).run({} as never),
    ).resolves.toEqual({ failed: 'present failed' });
  });
});
