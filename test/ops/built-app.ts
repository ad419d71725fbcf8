import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ENTRY } from '../../scripts/app-entry.mjs';

const root = join(import.meta.dirname, '..', '..');
const MAIN = join(root, APP_ENTRY);

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** These tests run the built app as an operator does (`npm start`: the production bundle): build it when missing or older than its sources. */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(MAIN).mtimeMs;
  } catch {
    /* not built */
  }
  // scripts/ too: the bundler is there (scripts/bundle-app.mjs, bundle-names.mjs).
  const sources = ['src', 'libs/mcp/src', 'scripts'].map((dir) => newest(join(root, dir)));
  if (built > Math.max(...sources)) return;
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

export interface AppProcess {
  readonly child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code and how long after `since` (default: the spawn) it came. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Waits for a stdout line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  kill(): void;
}

export function runApp(env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [MAIN], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + timeoutMs;
        const poll = (): void => {
          const match = pattern.exec(out);
          if (match) return resolve(match);
          if (child.exitCode !== null || Date.now() > deadline)
            return reject(new Error(`no ${pattern} in the app's output (exit ${child.exitCode}):\n${out}\n${err}`));
          setTimeout(poll, 50);
        };
        poll();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The JSON log lines the app printed (LOG_FORMAT=json). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
