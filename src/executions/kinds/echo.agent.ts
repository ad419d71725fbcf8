import type { Agent, AgentContext, AgentOutcome } from './agent.js';

/** `echo`: the output is the input. One step, one cost unit. */
export class EchoAgent implements Agent {
  async run(context: AgentContext): Promise<AgentOutcome> {
    await context.step('echo', 'Echoed the input back', 1);
    return { kind: 'succeeded', output: context.input };
  }
}
