// Builds the package twice from the same sources: dist/esm (ES modules, as the sources are written)
// and dist/cjs (CommonJS, for the many Nest 10/11 apps that are still CommonJS). Plain tsc, not a
// bundler: Nest's dependency injection reads the `design:paramtypes` metadata that only tsc (or
// swc) emits — esbuild-based bundlers such as tsup drop it.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

rmSync(join(root, 'dist'), { recursive: true, force: true });
// The two compilations are independent: run them side by side (tsc itself uses one core).
const compile = (project) =>
  new Promise((resolve) =>
    spawn(process.execPath, [tsc, '-p', join(root, project)], { cwd: root, stdio: 'inherit' }).on('exit', resolve),
  );
const codes = await Promise.all(['tsconfig.json', 'tsconfig.cjs.json'].map(compile));
if (codes.some((code) => code !== 0)) process.exit(1);
// Inside this "type": "module" package, .js files under dist/cjs are CommonJS only if a nearer
// package.json says so.
mkdirSync(join(root, 'dist/cjs'), { recursive: true });
writeFileSync(join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
