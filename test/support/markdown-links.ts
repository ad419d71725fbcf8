import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * What a reader of an unpacked package cannot follow: relative links of every Markdown file in it
 * (`[text](target)`, `[label]: target`, `<a href>`) that leave the package, name a file it does not
 * hold, or an anchor that file has no heading for; and, in the README, code spans that name a
 * folder of the repository (`src/…`, `test/…`) the package does not ship. Each is "file: target (why)".
 */
export async function brokenLinks(pkg: string): Promise<string[]> {
  const problems: string[] = [];
  for (const file of await markdownFiles(pkg)) {
    const name = relative(pkg, file);
    const text = withoutCode(await readFile(file, 'utf8'));
    for (const target of linkTargets(text)) {
      const why = await unresolved(pkg, file, target);
      if (why) problems.push(`${name}: ${target} (${why})`);
    }
    if (name === 'README.md')
      for (const path of repositoryPaths(await readFile(file, 'utf8')))
        if (!(await exists(join(pkg, path)))) problems.push(`${name}: \`${path}\` (not in the package)`);
  }
  return problems;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...(await markdownFiles(path)));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
  }
  return found;
}

/** The text without fenced blocks and inline code, where brackets are code, not links. */
function withoutCode(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

function linkTargets(text: string): string[] {
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  const anchors = [...text.matchAll(/<a\s[^>]*href="([^"]+)"/gi)].map((m) => m[1]!);
  return [...inline, ...references, ...anchors];
}

async function unresolved(pkg: string, from: string, target: string): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // absolute: https:, mailto:
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? from : resolve(dirname(from), decodeURIComponent(path));
  if (file !== pkg && !file.startsWith(pkg + sep)) return 'leaves the package';
  if (!(await exists(file))) return 'not in the package';
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md')) return 'an anchor in a file that is not Markdown';
  const slugs = headingSlugs(await readFile(file, 'utf8'));
  return slugs.has(anchor.toLowerCase()) ? undefined : 'no heading with this anchor';
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
}

/**
 * Code spans outside fenced blocks that name a repository folder (`test/adopters/`) or a file in
 * one (`src/errors.ts`); `tools/call` and other method names have neither a trailing slash nor an
 * extension.
 */
function repositoryPaths(text: string): string[] {
  const spans = [...withoutFences(text).matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return spans.filter((span) =>
    /^(src|test|tests|docs|examples|scripts|bench|tools|libs)\/([\w.-]+\/)*([\w-]+\.[a-z]{2,4})?$/.test(span),
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
