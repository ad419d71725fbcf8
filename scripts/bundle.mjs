// Part of `npm run build`, after `nest build`: the production bundle, dist/kadu (issue 32, start-up;
// docs/operators/operating.md §"The production bundle"). esbuild joins the compiled app (dist/src,
// whose decorator metadata tsc emitted) and the dependencies that bundle cleanly into one CommonJS
// file, dist/kadu/main.cjs: a start then reads one file instead of resolving and compiling ~1 300
// modules. dist/kadu/kadu.cjs (scripts/bundle-loader.cjs) runs it with V8's code cache.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/kadu');

/**
 * Left to node_modules, loaded as before: PGlite (its WASM and data files beside it), what the
 * OpenTelemetry SDK instruments or hooks (ioredis; the SDK itself, loaded only when telemetry is
 * on; the OpenTelemetry packages are external through the plugin below), and the packages Nest loads only when installed (`loadPackage`: absent here, they throw as
 * they would unbundled, and Nest takes the other path).
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  'ioredis',
  'import-in-the-middle',
  'require-in-the-middle',
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/websockets',
  '@nestjs/websockets/*',
  '@fastify/*',
  'class-transformer/storage',
];

/**
 * The OpenTelemetry packages stay in node_modules, but for its API (`@opentelemetry/api`, ~45
 * files loaded on every start, telemetry on or off): a bundled copy meets the SDK's through the
 * global registry the API keeps for this case (one `Symbol.for` key per major version), so the
 * providers, context manager and propagator the SDK registers are the ones the app's code uses.
 */
const opentelemetry = {
  name: 'opentelemetry-external',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\// }, (args) =>
      args.path === '@opentelemetry/api' ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * pg asks, when loaded, whether it runs in a Cloudflare Worker: without a `navigator` (Node 20 has
 * none) it builds a `Response`, which loads Node's whole fetch implementation (undici, ~45 ms of
 * CPU, issue 32) for an answer that is `false` on Node. The bundled pg takes that answer directly.
 */
const PG_CLOUDFLARE_PROBE = "typeof Response === 'function'";
const pgStream = {
  name: 'pg-stream-node',
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      if (!contents.includes(PG_CLOUDFLARE_PROBE))
        throw new Error(`scripts/bundle.mjs: ${args.path} no longer probes for Cloudflare as expected`);
      return { contents: contents.replace(PG_CLOUDFLARE_PROBE, 'false'), loader: 'js' };
    });
  },
};

/**
 * `import.meta.url` in a bundled file is the URL of the file it came from (relative to the bundle,
 * so the folder can move): paths found from it (the PGlite template, swagger-ui's assets,
 * `createRequire`) are found as in the unbundled build.
 */
const URL_OF = '__kaduBundledFileUrl';
// At the bundle's top, where `require` is Node's (a module may name its own `require`).
const BANNER = `var ${URL_OF} = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, path)).href;`;
const importMetaUrl = {
  name: 'import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      if (!contents.includes('import.meta.url')) return undefined;
      const from = JSON.stringify(relative(out, args.path));
      return { contents: contents.replaceAll('import.meta.url', `${URL_OF}(${from})`), loader: 'js' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(root, 'dist/src/bundle/entry.js')],
  outfile: join(out, 'main.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  keepNames: true,
  // `import()` as `require`: the bundle runs in a `vm.Script` (the loader's code cache), where
  // `import()` needs an experimental option; what it still imports (Node's own modules, the
  // optional packages Nest tries) is CommonJS or loads through require(esm) (Node ≥ 20.19).
  supported: { 'dynamic-import': false },
  // Whitespace and syntax only (names stay: Nest and the OpenAPI document read class names): V8
  // keeps a script's source in memory, and the bundle's is read whole.
  minifyWhitespace: true,
  minifySyntax: true,
  // The compiled files only: no tsconfig `paths` (tsconfig.json maps @kobana/nest-mcp to its sources).
  tsconfigRaw: {},
  plugins: [opentelemetry, pgStream, importMetaUrl],
  logLevel: 'warning',
  legalComments: 'none',
  banner: { js: BANNER },
  metafile: true,
});
// One byte per character: esbuild escapes what is not ASCII in strings, not in regular expression
// and template literals (validator's locales, the execution app's page). One such character makes V8
// hold the whole source as two-byte text (twice its size, in memory for the process's life) and
// the loader's read decode it as UTF-8; each UTF-16 unit written as `\uXXXX` means the same in a
// string, template, regular expression (with or without the `u` flag) and identifier. A backslash
// before one would change what the escape means: the build stops instead.
const code = readFileSync(join(out, 'main.cjs'), 'utf8');
const ascii = code.replace(/[^\x00-\x7f]/g, (unit, at) => {
  const raw = code.lastIndexOf('String.raw`', at);
  if (code[at - 1] === '\\' || (raw >= 0 && !code.slice(raw + 11, at).includes('`')))
    throw new Error(`scripts/bundle.mjs: a non-ASCII character at ${at} of main.cjs cannot be escaped`);
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
});
writeFileSync(join(out, 'main.cjs'), ascii);
const bundle = Buffer.from(ascii, 'latin1');
const hash = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
writeFileSync(
  join(out, 'kadu.cjs'),
  readFileSync(join(root, 'scripts/bundle-loader.cjs'), 'utf8').replaceAll('__BUNDLE_HASH__', hash),
);
const inputs = Object.keys(result.metafile.inputs).length;
console.log(`dist/kadu/main.cjs: ${inputs} modules, ${(bundle.length / 1e6).toFixed(1)} MB`);
