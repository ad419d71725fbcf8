import type { Agent, AgentContext, AgentOutcome } from './agent.js';

/** `echo`: the output is the input — input files come back as output files. One cost unit per item. */
export class EchoAgent implements Agent {
  // Deterministic, its only effects recorded steps and output files: resumes after an outage.
  readonly resumable = true;

  async run(context: AgentContext): Promise<AgentOutcome> {
    await context.step('echo', 'Echoed the input back', 1);
    const outputFileIds: string[] = [];
    for (const fileId of context.inputFileIds) {
      const file = await context.readFile(fileId);
      outputFileIds.push(await context.writeFile(file.name, file.contentType, file.bytes));
      await context.step('echo_file', `Echoed ${file.name}`, 1);
    }
    return { kind: 'succeeded', output: context.input, outputFileIds };
  }
}
