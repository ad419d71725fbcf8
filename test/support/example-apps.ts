import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
export const EXAMPLES = join(root, 'libs/mcp/examples');

// npm's own variables (set by `npm test`) would point the installs at this repository.
export const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

export interface StartedExample {
  url: URL;
  child: ChildProcess;
  output: () => string;
}

/**
 * A scratch folder outside the repository (so nothing resolves from its node_modules) holding the
 * tarball `npm pack` makes of libs/mcp, its unpacked contents, and the examples installed from it.
 */
export class ExampleScratch {
  private readonly children: ChildProcess[] = [];

  private constructor(readonly dir: string) {}

  /** Packs the package (the build ran before the tests: pretest), as kobana-nest-mcp.tgz, and unpacks it. */
  static async create(): Promise<ExampleScratch> {
    const scratch = new ExampleScratch(await mkdtemp(join(tmpdir(), 'kobana-examples-')));
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.dir], {
      cwd: join(root, 'libs/mcp'),
      env: cleanEnv,
    });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    await rename(join(scratch.dir, packed!.filename), join(scratch.dir, 'kobana-nest-mcp.tgz'));
    await mkdir(join(scratch.dir, 'unpacked'));
    await run('tar', ['-xzf', join(scratch.dir, 'kobana-nest-mcp.tgz'), '-C', join(scratch.dir, 'unpacked')]);
    return scratch;
  }

  /** The unpacked package, as a reader of node_modules/@kobana/nest-mcp sees it. */
  get unpacked(): string {
    return join(this.dir, 'unpacked/package');
  }

  /** Copies an example here, installs it (its dependency is `file:../kobana-nest-mcp.tgz`) and builds it with its own script. */
  async install(example: string): Promise<void> {
    const dir = join(this.dir, example);
    await cp(join(EXAMPLES, example), dir, {
      recursive: true,
      filter: (src) => !/node_modules|dist/.test(src.slice(EXAMPLES.length)),
    });
    const npmInstall = [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefer-offline',
      '--loglevel=error',
    ];
    await run('npm', npmInstall, { cwd: dir, env: cleanEnv });
    await run('npm', ['run', 'build', '--silent'], { cwd: dir, env: cleanEnv });
  }

  /** Starts a built example with a given node binary on a free port; resolves once it prints its endpoint. */
  start(example: string, node: string, env: Record<string, string> = {}): Promise<StartedExample> {
    const child = spawn(node, ['dist/main.js'], {
      cwd: join(this.dir, example),
      env: { ...cleanEnv, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    let output = '';
    return new Promise((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const url = /MCP endpoint: (\S+)/.exec(output)?.[1];
        if (url) resolve({ url: new URL(url), child, output: () => output });
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', (code) => reject(new Error(`${example} exited (${code}) before listening:\n${output}`)));
    });
  }

  /** Stops every example started here (SIGTERM: their shutdown hooks run) and removes the folder. */
  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill();
          }),
      ),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Opens an approval link's page on `origin` (the replica a balancer sends the person to), reads its anti-CSRF token and presses a button. */
export async function decideApproval(link: string, origin: string, decision: 'approve' | 'reject'): Promise<number> {
  const at = new URL(new URL(link).pathname, origin);
  const page = await fetch(at);
  if (page.status !== 200) throw new Error(`the approval page answered ${page.status}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('the approval page has no anti-CSRF token');
  const decided = await fetch(at, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, decision }),
  });
  return decided.status;
}
