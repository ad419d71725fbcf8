// The machine's speed between load windows (bench/RESULTS.md, issue 32, thirty-third pass): a child
// process on the servers' core runs one fixed piece of work on request and answers with the CPU it
// took. On this shared machine the same server's CPU per call moves by up to 2× from one window to
// the next (slow spells); a window measured in a spell reads slow on the probe too, so a missed
// target can be told from a slow machine. Reported beside the results, never instead of them.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pin } from './helpers.mjs';

/** Far more than one reading takes (~16 ms): a probe that does not answer stops the run. */
const ANSWER_WITHIN_MS = 30_000;

/** A fixed mix of what a server does per call: JSON both ways, strings, small objects and a Map. */
function work() {
  const payload = {
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: 'hello hello' }], structuredContent: { echoed: 'hello', times: 2 } },
  };
  const seen = new Map();
  let total = 0;
  for (let i = 0; i < 400; i++) {
    const text = JSON.stringify({ ...payload, id: i });
    const back = JSON.parse(text);
    const key = `${back.result.content[0].text}:${i % 64}`;
    seen.set(key, (seen.get(key) ?? 0) + text.length);
    total += key.length;
  }
  return total + seen.size;
}

/** The child's side: one run of `work` per line read, answered with its CPU time in µs. */
function serve() {
  for (let i = 0; i < 200; i++) work(); // optimised before the first answer
  let sink = 0;
  createInterface({ input: process.stdin }).on('line', () => {
    const before = process.cpuUsage();
    for (let i = 0; i < 20; i++) sink += work();
    const spent = process.cpuUsage(before);
    process.stdout.write(`${spent.user + spent.system} ${sink % 2}\n`);
  });
  process.stdout.write('READY\n');
}

/**
 * Starts the probe on `core` (undefined: not pinned). `measure()` resolves to the µs of CPU the
 * fixed work took; call it only between load windows, when the servers idle. A probe that exits or
 * does not answer rejects, so the run ends (and cleans up) instead of waiting for ever.
 */
export async function startSpeedProbe(core) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = [];
  const failAll = (error) => waiting.splice(0).forEach(({ reject }) => reject(error));
  child.once('error', failAll);
  child.once('exit', (code, signal) => failAll(new Error(`the speed probe exited (${signal ?? code})`)));
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line));
  const next = () =>
    new Promise((resolve, reject) => {
      const late = setTimeout(() => reject(new Error('the speed probe did not answer')), ANSWER_WITHIN_MS);
      const settle = (then) => (value) => {
        clearTimeout(late);
        then(value);
      };
      waiting.push({ resolve: settle(resolve), reject: settle(reject) });
    });
  try {
    await next(); // READY
  } catch (error) {
    child.kill();
    throw error;
  }
  if (core !== undefined) pin(child.pid, core);
  return {
    async measure() {
      const answer = next();
      child.stdin.write('go\n');
      return Number((await answer).split(' ')[0]);
    },
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--serve') serve();
