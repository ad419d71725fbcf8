// esbuild's keepNames (scripts/bundle.mjs) wraps every named function in `__name(fn, "name")`, a
// call to Object.defineProperty, decided when each file is parsed, before esbuild knows which names
// its renamer will change (evanw/esbuild#2605). Most wrapped functions keep their name, and where
// such a function is made per call (a closure in a request's path), the call runs per request: the
// bundle served an MCP call with 1.38× the CPU of the unbundled build (bench/RESULTS.md, issue 32,
// twenty-seventh pass). This pass removes the wrappers that change nothing and keeps the others.
import { parse } from 'acorn';

const HELPER = '__name';

/**
 * The bundle's code with the `__name` calls that cannot change a name removed; every function's and
 * class's `name` stays what keepNames gives it. A call goes when
 * - its function is a declaration of that same name in the same block (`function f(){}` …
 *   `__name(f, "f")`): its name is already "f";
 * - its function is anonymous and sits where the language names it (NamedEvaluation, ECMA-262
 *   §8.4.5) with that same name: `const f = __name(() => …, "f")`, `f = …`, `{ f: … }` and a class
 *   field `f = …` become `const f = () => …` and so on, which name it "f" themselves.
 * A call whose name differs from the identifier it is bound to (esbuild renamed it: `parse10`,
 * `header2`) is kept, and so is every other form (`__name(this, …)` in a class's static block, a
 * function passed as an argument).
 */
export function dropUnneededNames(code) {
  const ast = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
  // Text to cut: `__name(` before a kept function, `, "name")` after it.
  const cuts = [];
  let kept = 0;
  const ancestors = [];
  const visit = (node) => {
    if (isNameCall(node)) {
      const [fn, { value }] = node.arguments;
      if (namesItself(fn, value, ancestors)) cuts.push([node.start, fn.start], [fn.end, node.end]);
      else kept++;
    }
    ancestors.push(node);
    for (const key in node) {
      const child = node[key];
      if (Array.isArray(child)) {
        for (const item of child) if (isNode(item)) visit(item);
      } else if (isNode(child) && key !== 'type') visit(child);
    }
    ancestors.pop();
  };
  visit(ast);
  cuts.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to] of cuts) {
    out += code.slice(at, from);
    at = to;
  }
  return { code: out + code.slice(at), dropped: cuts.length / 2, kept };
}

const isNode = (value) => value !== null && typeof value === 'object' && typeof value.type === 'string';

const isNameCall = (node) =>
  node.type === 'CallExpression' &&
  node.callee.type === 'Identifier' &&
  node.callee.name === HELPER &&
  node.arguments.length === 2 &&
  node.arguments[1].type === 'Literal' &&
  typeof node.arguments[1].value === 'string';

/** Whether `fn` is named `name` without the call: declared so, or named so where it is bound. */
function namesItself(fn, name, ancestors) {
  if (fn.type === 'Identifier') return fn.name === name && declaredInBlock(name, ancestors);
  const anonymous =
    (fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression' || fn.type === 'ClassExpression') &&
    !fn.id;
  return anonymous && bindingName(ancestors.at(-1), ancestors.at(-2)) === name;
}

/** A function declaration of that name in the nearest block around the call (its binding there). */
function declaredInBlock(name, ancestors) {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const body = ancestors[i].body;
    if (Array.isArray(body))
      return body.some((statement) => statement.type === 'FunctionDeclaration' && statement.id?.name === name);
  }
  return false;
}

/** The name NamedEvaluation gives an anonymous function that is `parent`'s value, if any. */
function bindingName(parent, grandparent) {
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.id.type === 'Identifier' ? parent.id.name : undefined;
    case 'AssignmentExpression':
      return parent.operator === '=' && parent.left.type === 'Identifier' ? parent.left.name : undefined;
    case 'Property':
      // `__proto__: value` sets the prototype and names nothing.
      return parent.kind === 'init' && !parent.method && !parent.shorthand && grandparent.type === 'ObjectExpression'
        ? keyName(parent, '__proto__')
        : undefined;
    case 'PropertyDefinition':
      return keyName(parent);
    default:
      return undefined;
  }
}

function keyName(property, excluded) {
  if (property.computed) return undefined;
  const { key } = property;
  const name = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? String(key.value) : undefined;
  return name === excluded ? undefined : name;
}
