/**
 * RFC 6570 level 1 templates (`{var}` simple expansion), matched strictly: the whole URI, each
 * variable one non-empty value of its pattern. Default pattern: no `/ ? # %` and no control
 * characters, like an id — so a variable cannot smuggle another path or an encoded one.
 */
export const DEFAULT_VARIABLE = /^[^/?#%\u0000-\u001f\u007f]+$/;

export interface CompiledTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

export function compileUriTemplate(template: string, patterns: Record<string, RegExp> = {}): CompiledTemplate {
  const variables: string[] = [];
  let source = '^';
  let rest = template;
  for (;;) {
    const open = rest.indexOf('{');
    if (open < 0) break;
    const close = rest.indexOf('}', open);
    if (close < 0) throw new Error(`URI template ${template}: unclosed '{'`);
    const name = rest.slice(open + 1, close);
    if (!/^[A-Za-z0-9_]+$/.test(name))
      throw new Error(`URI template ${template}: only level-1 variables like {id} are supported`);
    if (variables.includes(name)) throw new Error(`URI template ${template}: variable {${name}} appears twice`);
    variables.push(name);
    source += escape(rest.slice(0, open)) + '([^]*?)';
    rest = rest.slice(close + 1);
  }
  if (rest.includes('}')) throw new Error(`URI template ${template}: stray '}'`);
  const regex = new RegExp(source + escape(rest) + '$');
  return {
    template,
    variables,
    match(uri: string) {
      const m = regex.exec(uri);
      if (!m) return undefined;
      const values: Record<string, string> = {};
      for (const [i, name] of variables.entries()) {
        const value = m[i + 1]!;
        if (!(patterns[name] ?? DEFAULT_VARIABLE).test(value)) return undefined;
        values[name] = value;
      }
      return values;
    },
  };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
