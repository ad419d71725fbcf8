import { type EnvKind, milliseconds, nonNegative } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

/** 0 makes a replica that only queues (others run the work): possible only with the shared queue. */
const concurrency: EnvKind<number> = {
  allowed: 'whole number ≥ 0 (0 only with Redis)',
  check: (raw, name, env) => {
    const malformed = nonNegative.check!(raw, name, env);
    if (malformed || raw === undefined || raw === '') return malformed;
    if (!Number.isInteger(Number(raw))) return `${name} must be an integer, got '${raw}'`;
    const sharedQueue = Boolean(env.REDIS_URL || env.REDIS_CLUSTER_NODES || env.REDIS_SENTINELS);
    return Number(raw) === 0 && !sharedQueue
      ? `${name}=0 needs Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS): with the in-process queue nothing would ever run`
      : undefined;
  },
  parse: nonNegative.parse,
};

class ExecutionsEnv {
  @Env(concurrency, {
    default: '2',
    meaning:
      "executions this process's worker runs at once; `0` (only with Redis) makes a replica that queues work and leaves running it to the others",
  })
  KADU_EXECUTION_CONCURRENCY!: number;

  @Env(nonNegative, {
    default: '0',
    meaning: 'pause (ms) inside each simulated agent step (to watch executions run)',
  })
  KADU_STEP_DELAY_MS!: number;

  @Env(nonNegative, {
    default: '1000',
    meaning: 'queued executions beyond which `run`/`continue` answer 503 `queue_saturated`',
  })
  KADU_QUEUE_MAX_DEPTH!: number;

  @Env(milliseconds, {
    default: '10000',
    meaning:
      "with Redis: how long a worker's unrenewed hold on an execution lasts (it renews it every half of this while it lives)",
  })
  KADU_QUEUE_LOCK_MS!: number;

  @Env(milliseconds, {
    default: '5000',
    meaning:
      "how often every replica sweeps for orphaned executions: `running` ones no live worker holds are failed `worker_lost`, `queued` ones no queue holds are queued again. A dead worker's execution ends within `KADU_QUEUE_LOCK_MS` + `KADU_SWEEP_INTERVAL_MS` (15 s by default)",
  })
  KADU_SWEEP_INTERVAL_MS!: number;
}

export interface ExecutionsConfig {
  readonly executionConcurrency: number;
  /** Pause inside each simulated agent step (KADU_STEP_DELAY_MS), to watch executions run. */
  readonly stepDelayMs: number;
  /** Queued executions beyond which runs answer 503 (KADU_QUEUE_MAX_DEPTH). */
  readonly queueMaxDepth: number;
  /** With Redis: how long a worker's hold on an execution lasts unrenewed before another replica takes it over (KADU_QUEUE_LOCK_MS). */
  readonly queueLockMs: number;
  /** How often every replica looks for executions orphaned by a dead worker or an outage (KADU_SWEEP_INTERVAL_MS). */
  readonly sweepIntervalMs: number;
}

export const executionsConfig = defineSlice(
  'executions',
  ExecutionsEnv,
  ['executionConcurrency', 'stepDelayMs', 'queueMaxDepth', 'queueLockMs', 'sweepIntervalMs'],
  (values): ExecutionsConfig => ({
    executionConcurrency: values.KADU_EXECUTION_CONCURRENCY,
    stepDelayMs: values.KADU_STEP_DELAY_MS,
    queueMaxDepth: values.KADU_QUEUE_MAX_DEPTH,
    queueLockMs: values.KADU_QUEUE_LOCK_MS,
    sweepIntervalMs: values.KADU_SWEEP_INTERVAL_MS,
  }),
);
