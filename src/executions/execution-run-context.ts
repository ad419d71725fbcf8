import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../common/ids.js';
import type { AppConfig } from '../config/app-config.js';
import type { Database } from '../db/database.js';
import { FileGone, type FileStore } from '../files/file-store.js';
import type { FilesService } from '../files/files.service.js';
import type { FileRow } from '../files/file.view.js';
import type { ExecutionNotifier } from './execution-notifier.js';
import type { ExecutionRow } from './execution.view.js';
import { type AgentContext, AgentError } from './kinds/agent.js';

export class CostCapReached extends Error {}
export class Canceled extends Error {}
/** The execution is no longer this worker's (failed, or taken over by another): stop without writing. */
export class NoLongerHeld extends Error {}
/** The process is stopping: the execution goes back to the queue after the step in progress. */
export class HandedBack extends Error {
  /** The last step recorded before this worker's part: what it added after it is undone. */
  constructor(readonly stepsBefore: number) {
    super('handed back');
  }
}

export interface RunDeps {
  readonly db: Database;
  readonly config: AppConfig;
  readonly files: FilesService;
  readonly store: FileStore;
  readonly notifier: ExecutionNotifier;
  readonly stopping: () => boolean;
}

/**
 * What the kind sees while this worker runs `execution` (taken with its `run_token`). Every write
 * is fenced by the token: once another worker has taken the run over, this one writes nothing.
 *
 * A resumed run (run_start_seq below the last step) runs the kind anew: its first steps are the
 * ones already recorded since the run began, and are replayed — checked, neither recorded nor
 * charged again — and its first file writes return the output files already written. The kinds
 * that resume are deterministic (kinds/agent.ts, `resumable`), so the replay meets them in order.
 */
export async function runContext(deps: RunDeps, execution: ExecutionRow): Promise<AgentContext> {
  const { db } = deps;
  const token = execution.run_token;
  const recorded = await db.query<{ seq: number; kind: string }>(
    'select seq, kind from execution_steps where execution_id = $1 and seq > $2 order by seq',
    [execution.id, execution.run_start_seq ?? 0],
  );
  const seq = recorded.length ? recorded[recorded.length - 1]!.seq : (execution.run_start_seq ?? 0);
  const replay = [...recorded];
  const written = [...execution.output_file_ids];
  let writes = 0;
  let lastSeq = seq;
  let spent = execution.cost_spent;

  const record = async (kind: string, summary: string): Promise<void> => {
    await db.transaction(async (tx) => {
      const held = await tx.query(
        `update executions set cost_spent = $2, updated_at = now() where id = $1 and status = 'running' and run_token = $3 returning id`,
        [execution.id, spent, token],
      );
      if (!held.length) throw new NoLongerHeld();
      await tx.query(
        'insert into execution_steps (id, org_id, execution_id, seq, kind, summary) values ($1, $2, $3, $4, $5, $6)',
        [newId(), execution.org_id, execution.id, lastSeq + 1, kind, summary],
      );
    });
    lastSeq++;
    await deps.notifier.changed(execution, { steps: lastSeq, stepsChanged: true });
  };

  return {
    input: execution.input ?? {},
    inputFileIds: execution.input_file_ids,
    answers: execution.answers,
    step: async (kind, summary, cost) => {
      const done = replay.shift();
      if (done) {
        if (done.kind === 'cost_cap') throw new CostCapReached();
        if (done.kind !== kind)
          throw new AgentError(
            'resume_mismatch',
            `Step ${done.seq} was ${done.kind}; the resumed run asked for ${kind}`,
          );
        return;
      }
      if (deps.stopping()) throw new HandedBack(seq);
      if (deps.config.stepDelayMs) await sleep(deps.config.stepDelayMs);
      const [state] = await db.query<{ cancel_requested: boolean; status: string; run_token: string | null }>(
        'select cancel_requested, status, run_token from executions where id = $1',
        [execution.id],
      );
      if (state?.status !== 'running' || state.run_token !== token) throw new NoLongerHeld();
      if (state.cancel_requested) throw new Canceled();
      if (spent + cost > execution.cost_cap) {
        await record('cost_cap', `Stopped: this step would spend past the cap of ${execution.cost_cap} units`);
        throw new CostCapReached();
      }
      spent += cost;
      await record(kind, summary);
    },
    readFile: async (fileId) => {
      const [file] = await db.query<FileRow>(
        `select * from files where id = $1 and org_id = $2 and deleted_at is null and status = 'ready'`,
        [fileId, execution.org_id],
      );
      if (!file) throw new AgentError('input_file_not_found', `Input file ${fileId} is missing or not ready`);
      try {
        return {
          name: file.name,
          contentType: file.content_type,
          bytes: await deps.store.read(execution.org_id, file.id),
        };
      } catch (error) {
        if (error instanceof FileGone)
          throw new AgentError('input_file_unavailable', `The bytes of input file ${fileId} are no longer available`);
        throw error;
      }
    },
    writeFile: async (name, contentType, bytes) => {
      // Written before the interruption: the same file, not a second one.
      if (writes < written.length) return written[writes++]!;
      const id = (await deps.files.createOutput(execution.org_id, name, contentType, bytes)).id;
      const held = await db.query(
        `update executions set output_file_ids = output_file_ids || jsonb_build_array($2::text), updated_at = now()
          where id = $1 and status = 'running' and run_token = $3 returning id`,
        [execution.id, id, token],
      );
      if (!held.length) throw new NoLongerHeld();
      writes++;
      return id;
    },
  };
}
