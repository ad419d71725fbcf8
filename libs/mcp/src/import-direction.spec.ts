import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The module's floors, lowest first: a file imports only from its own floor or lower ones, so that
 * what several layers share sits on the lowest floor that uses it and nothing reaches upward.
 * Root files are placed one by one; the entry points (index.ts, redis/, express/, testing/) may
 * import anything.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['protocol'],
  ['redis-client'],
  // response/: the headers an answer holds for its one writeHead (the rate-limit headers among them).
  ['response'],
  ['auth', 'pages', 'errors.ts', 'state', 'events'],
  ['call', 'tasks'],
  // McpValidationPipe: what host-validation.ts makes, and discovery reads class-transformer's storage from.
  ['validation'],
  // The raw options as adopters write them, then their one resolution (settings/resolve-options.ts).
  ['options', 'mcp.options.ts', 'host-validation.ts'],
  ['settings', 'mcp-config.ts'],
  ['discovery'],
  ['telemetry'],
  ['confirmation'],
  // What dispatch/ and subscriptions/ both need: the access decision, and canRead (resource-access.ts).
  ['access'],
  ['dispatch', 'subscriptions'],
  ['guards', 'http'],
  ['mcp.module.ts'],
];
const ENTRY_POINTS = ['index.ts', 'redis', 'express', 'testing'];
/** Places on one floor that never import each other, either way: each stands on the floors below alone. */
const APART: readonly (readonly [string, string])[] = [['dispatch', 'subscriptions']];

const src = dirname(fileURLToPath(import.meta.url));

function placeOf(file: string): string {
  const [first] = relative(src, file).split('/');
  return first!;
}

function floorOf(place: string): number {
  const floor = FLOORS.findIndex((names) => names.includes(place));
  if (floor < 0) throw new Error(`${place} has no floor: add it to FLOORS in import-direction.spec.ts`);
  return floor;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * The relative modules a file names: `import … from`, `export … from`, a bare `import './x'`, and
 * `import('./x')` — a type expression (`tasks?: import('./tasks/task-source.js').McpTaskSource`)
 * or a dynamic import points at a floor as much as a static import does.
 */
function relativeImports(text: string): string[] {
  const patterns = [/\bfrom\s+'(\.[^']+)'/g, /\bimport\s+'(\.[^']+)'/g, /\bimport\(\s*'(\.[^']+)'\s*\)/g];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

describe('the import direction of libs/mcp', () => {
  it('sees static, bare and import() type expressions alike', () => {
    const text = [
      "import { a } from './a.js';",
      "export type { B } from '../b.js';",
      "import './side-effect.js';",
      "  tasks?: import('./tasks/task-source.js').McpTaskSource;",
      "const lazy = await import( './lazy.js' );",
      "import { c } from '@nestjs/common';",
    ].join('\n');
    expect(relativeImports(text).sort()).toEqual(
      ['../b.js', './a.js', './lazy.js', './side-effect.js', './tasks/task-source.js'].sort(),
    );
  });

  it('has every file on a floor, and no file importing from a floor above its own', () => {
    const upward: string[] = [];
    for (const file of sources(src)) {
      const place = placeOf(file);
      if (ENTRY_POINTS.includes(place)) continue;
      const floor = floorOf(place);
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
        expect(
          relative(src, target).startsWith('..'),
          `${relative(src, file)} imports ${spec} outside the library`,
        ).toBe(false);
        const targetPlace = placeOf(target);
        if (floorOf(targetPlace) > floor) upward.push(`${relative(src, file)} → ${spec}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no two places importing each other, and keeps apart the places that must not meet', () => {
    const edges = new Set<string>();
    for (const file of sources(src)) {
      const place = placeOf(file);
      if (ENTRY_POINTS.includes(place)) continue;
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const target = placeOf(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
        if (target !== place) edges.add(`${place} → ${target}`);
      }
    }
    const mutual = [...edges].flatMap((edge) => {
      const [from, to] = edge.split(' → ');
      return from! < to! && edges.has(`${to} → ${from}`) ? [`${from} ⇄ ${to}`] : [];
    });
    expect(mutual).toEqual([]);
    const meeting = APART.flatMap(([a, b]) => [`${a} → ${b}`, `${b} → ${a}`]).filter((edge) => edges.has(edge));
    expect(meeting).toEqual([]);
  });

  it('keeps dispatch/ away from the guards and the HTTP layer', () => {
    for (const file of sources(join(src, 'dispatch'))) {
      expect(readFileSync(file, 'utf8'), relative(src, file)).not.toMatch(/from '\.\.\/(guards|http)\//);
    }
  });
});
