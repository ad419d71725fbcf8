// The bundler behind `npm run build`'s production bundle (scripts/bundle.mjs) and the bench's Kadu
// app (bench/kadu-bundle.mjs), so that the bench measures the app as `npm start` runs it (issue 32,
// start-up; docs/operators/operating.md §"The production bundle"). esbuild joins the compiled app
// (dist/src, whose decorator metadata tsc emitted) and the dependencies that bundle cleanly into one
// CommonJS file: a start then reads one file instead of resolving and compiling ~1 300 modules.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { build } from 'esbuild';
import { dropUnneededNames } from './bundle-names.mjs';

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
        throw new Error(`scripts/bundle-app.mjs: ${args.path} no longer probes for Cloudflare as expected`);
      return { contents: contents.replace(PG_CLOUDFLARE_PROBE, 'false'), loader: 'js' };
    });
  },
};

/**
 * Nest's two loggers each make an `Intl.DateTimeFormat` when loaded, for the timestamp of a line
 * Kadu never has them print (its logs are pino's): the first one loads ICU's locale data, ~20 ms of
 * CPU and ~7 MB of a replica's idle memory (bench/RESULTS.md, issue 32, thirty-first pass). The
 * bundled copies make the same formatter on their first line instead.
 */
const NEST_EAGER_FORMATTER = /const dateTimeFormatter = new Intl\.DateTimeFormat\((undefined, \{[^}]*\})\);/;
const NEST_LOGGER_FILES = /[\\/]@nestjs[\\/]common[\\/]services[\\/](console-)?logger\.service\.js$/;
const nestLoggerFormatter = {
  name: 'nest-logger-formatter',
  setup(build) {
    let rewritten = 0;
    build.onStart(() => {
      rewritten = 0;
    });
    build.onLoad({ filter: NEST_LOGGER_FILES }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      // The stand-in has `format` only: any other use of the formatter, or another way of making
      // it, stops the build rather than breaking a log line at run time.
      const uses = contents.match(/dateTimeFormatter\.\w+/g) ?? [];
      if (!NEST_EAGER_FORMATTER.test(contents) || uses.some((use) => use !== 'dateTimeFormatter.format'))
        throw new Error(`scripts/bundle-app.mjs: ${args.path} no longer makes and uses its date formatter as expected`);
      rewritten++;
      return {
        contents: contents.replace(
          NEST_EAGER_FORMATTER,
          'const dateTimeFormatter = { format(time) { return (this.made ??= new Intl.DateTimeFormat($1)).format(time); } };',
        ),
        loader: 'js',
      };
    });
    // Both loggers are always bundled (@nestjs/common's index exports them): fewer means they moved.
    build.onEnd((result) => {
      if (!result.errors.length && rewritten !== 2)
        throw new Error(`scripts/bundle-app.mjs: rewrote ${rewritten} of Nest's 2 logger formatters; have they moved?`);
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
const importMetaUrl = (out) => ({
  name: 'import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      if (!contents.includes('import.meta.url')) return undefined;
      const from = JSON.stringify(relative(out, args.path));
      return { contents: contents.replaceAll('import.meta.url', `${URL_OF}(${from})`), loader: 'js' };
    });
  },
});

/**
 * Bundles `entry` (a compiled file under dist/) into `outfile`, one CommonJS file in ASCII; returns
 * its bytes, how many modules it holds, and the keepNames wrappers dropped, turned into literals and kept.
 */
export async function bundleApp({ entry, outfile }) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    // esbuild renames what two modules both declare (`helper`, `helper2`): keepNames gives each
    // function and class its own name back, which Nest, the OpenAPI document and logs read.
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
    plugins: [opentelemetry, pgStream, nestLoggerFormatter, importMetaUrl(dirname(outfile))],
    logLevel: 'warning',
    legalComments: 'none',
    banner: { js: BANNER },
    metafile: true,
  });
  // keepNames' wrappers that change no name go, and other anonymous functions are named by a
  // literal: a named closure made per request paid a defineProperty each time (scripts/bundle-names.mjs).
  const names = dropUnneededNames(readFileSync(outfile, 'utf8'));
  const code = names.code;
  // One byte per character: esbuild escapes what is not ASCII in strings, not in regular expression
  // and template literals (validator's locales, the execution app's page). One such character makes V8
  // hold the whole source as two-byte text (twice its size, in memory for the process's life) and
  // the loader's read decode it as UTF-8; each UTF-16 unit written as `\uXXXX` means the same in a
  // string, template, regular expression (with or without the `u` flag) and identifier. A backslash
  // before one would change what the escape means: the build stops instead.
  const ascii = code.replace(/[^\x00-\x7f]/g, (unit, at) => {
    const raw = code.lastIndexOf('String.raw`', at);
    if (code[at - 1] === '\\' || (raw >= 0 && !code.slice(raw + 11, at).includes('`')))
      throw new Error(`scripts/bundle-app.mjs: a non-ASCII character at ${at} of ${outfile} cannot be escaped`);
    return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  writeFileSync(outfile, ascii);
  return {
    bytes: Buffer.from(ascii, 'latin1'),
    modules: Object.keys(result.metafile.inputs).length,
    names: { dropped: names.dropped, literal: names.literal, kept: names.kept },
  };
}
