/** What a task kind (the agent) may do while it runs an execution. */
export interface AgentContext {
  readonly input: Record<string, unknown>;
  readonly inputFileIds: readonly string[];
  /** The answers given with `continue`, when the execution asked a question. */
  readonly answers: Record<string, unknown> | null;
  /** Records a step and spends its cost; stops the run when the cap is reached or a cancel was asked. */
  step(kind: string, summary: string, cost: number): Promise<void>;
  readFile(fileId: string): Promise<{ name: string; contentType: string; bytes: Buffer }>;
  writeFile(name: string, contentType: string, bytes: Buffer): Promise<string>;
}

export type AgentOutcome =
  { kind: 'succeeded'; output: unknown; outputFileIds?: string[] } | { kind: 'awaiting_input'; question: unknown };

/** A task kind. The reference kinds are deterministic so that everything is testable without a model. */
export interface Agent {
  /**
   * Whether a run interrupted by an outage (its worker lost its hold, or a dependency went away
   * mid-run) may be taken up again: the kind is run anew and the steps already recorded are
   * replayed, not redone or charged (execution-run-context.ts). True only for a kind whose effects
   * are all recorded steps and output files — deterministic from its input, files and answers.
   */
  readonly resumable: boolean;
  run(context: AgentContext): Promise<AgentOutcome>;
}

/** A failure the caller can understand (bad input, missing file); recorded as the execution's error. */
export class AgentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
