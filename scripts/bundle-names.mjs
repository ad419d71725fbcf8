// esbuild's keepNames (scripts/bundle-app.mjs) wraps every named function in `__name(fn, "name")`, a
// call to Object.defineProperty, decided when each file is parsed, before esbuild knows which names
// its renamer will change (evanw/esbuild#2605). Most wrapped functions keep their name, and where
// such a function is made per call (a closure in a request's path), the call runs per request: the
// bundle served an MCP call with 1.38× the CPU of the compiled files (bench/RESULTS.md, issue 32,
// twenty-seventh pass). This pass removes the wrappers that change nothing, and names the other
// anonymous functions the way the language does, without a call.
import Module from 'node:module';
import { Script } from 'node:vm';
import { parse } from 'acorn';

const HELPER = '__name';

/**
 * The bundle's code with its `__name` calls made cheaper; every function's and class's `name`
 * stays what keepNames gives it. A call goes when
 * - its function is declared with that same name in the statement list the call stands in
 *   (`function f(){}` … `__name(f, "f")`) and nothing below that list assigns a name so spelt
 *   (writesByList): its name is already "f";
 * - its function is an anonymous function or arrow where the language names it (NamedEvaluation,
 *   ECMA-262 §8.4.5) with that same name: `const f = __name(() => …, "f")`, `f = …`, `{ f: … }`
 *   and a class field `f = …` become `const f = () => …` and so on.
 * Another anonymous function or arrow (esbuild renamed its binding, `header2`; or it is an argument
 * or returned) is named by an object literal, as `{ "f": … }` names it: `({"f": () => …})["f"]`,
 * an allocation the optimising compiler can remove instead of a defineProperty and a new map for
 * every function made. Everything else is kept: `__name(this, …)` in a class's static block, a
 * class expression (a static `name` member would answer differently), a function that is called
 * or tagged right there (it would get the object as `this`), a call that begins a statement, the
 * key `__proto__`.
 */
export function dropUnneededNames(code) {
  const ast = parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'script',
    allowReturnOutsideFunction: true,
    // `(f) = …` does not name what it assigns (ECMA-262 §13.15.2): the parentheses must show.
    preserveParens: true,
  });
  const writes = writesByList(ast);
  const edits = [];
  let dropped = 0;
  let literals = 0;
  let kept = 0;
  const ancestors = [];
  const visit = (node) => {
    if (isNameCall(node)) {
      const [fn, literal] = node.arguments;
      const { value } = literal;
      if (namesItself(fn, value, ancestors, writes)) {
        edits.push([node.start, fn.start, ''], [fn.end, node.end, '']);
        dropped++;
      } else if (nameableByLiteral(fn, value, node, ancestors)) {
        // The name as esbuild wrote it (ASCII, its escapes kept): the bundle stays ASCII.
        edits.push([node.start, fn.start, `({${literal.raw}:`], [fn.end, node.end, `})[${literal.raw}]`]);
        literals++;
      } else kept++;
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
  edits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to, text] of edits) {
    out += code.slice(at, from) + text;
    at = to;
  }
  out += code.slice(at);
  // Compiled as the loader compiles it (scripts/bundle-loader.cjs), not run: a cut that joined two
  // tokens would stop the build here rather than the app.
  new Script(Module.wrap(out), { filename: 'bundle-names-check.cjs' });
  return { code: out, dropped, literal: literals, kept };
}

const isNode = (value) => value !== null && typeof value === 'object' && typeof value.type === 'string';

const isNameCall = (node) =>
  node.type === 'CallExpression' &&
  node.callee.type === 'Identifier' &&
  node.callee.name === HELPER &&
  node.arguments.length === 2 &&
  node.arguments[1].type === 'Literal' &&
  typeof node.arguments[1].value === 'string';

/** The expression inside any parentheses around it. */
const unparenthesised = (node) => (node.type === 'ParenthesizedExpression' ? unparenthesised(node.expression) : node);

const isAnonymousFunction = (node) => {
  const fn = unparenthesised(node);
  return (fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') && !fn.id;
};

/** Whether `fn` is named `name` without the call: declared so, or named so where it is bound. */
function namesItself(fn, name, ancestors, writes) {
  if (fn.type === 'Identifier') return fn.name === name && declaredBeside(name, ancestors, writes);
  return isAnonymousFunction(fn) && bindingName(ancestors.at(-1), ancestors.at(-2)) === name;
}

/**
 * A function declaration of that name in the statement list the call stands in, reached through
 * the statement itself only (`__name(f, "f");`, `return __name(f, "f"), f;`): the binding the
 * identifier refers to there, which nothing below that list assigns.
 */
function declaredBeside(name, ancestors, writes) {
  let i = ancestors.length - 1;
  while (i > 0 && ancestors[i].type === 'SequenceExpression') i--;
  const statement = ancestors[i];
  if (statement.type !== 'ExpressionStatement' && statement.type !== 'ReturnStatement') return false;
  const list = ancestors[i - 1];
  const body = list?.body;
  return (
    Array.isArray(body) &&
    !writes.get(list).has(name) &&
    body.includes(statement) &&
    body.some((s) => s.type === 'FunctionDeclaration' && s.id?.name === name)
  );
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
        ? keyName(parent)
        : undefined;
    case 'PropertyDefinition':
      return keyName(parent);
    default:
      return undefined;
  }
}

/** A property's or field's name when it is written out (not computed, not private), `__proto__` aside. */
function keyName(property) {
  if (property.computed) return undefined;
  const { key } = property;
  const name = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? String(key.value) : undefined;
  return name === '__proto__' ? undefined : name;
}

/**
 * Whether `({"name": fn})["name"]` may stand for the call: the same function, named so, and
 * nothing else changed. Not where it is called or tagged (through parentheses too: it would get the
 * object as `this`), nor where it would begin a statement (after a line without `;`, a `(` would
 * call what precedes it).
 */
function nameableByLiteral(fn, name, call, ancestors) {
  if (!isAnonymousFunction(fn) || name === '__proto__') return false;
  let outer = call;
  let i = ancestors.length - 1;
  while (i >= 0 && ancestors[i].type === 'ParenthesizedExpression') outer = ancestors[i--];
  const parent = ancestors[i];
  if (
    (parent.type === 'CallExpression' && parent.callee === outer) ||
    (parent.type === 'TaggedTemplateExpression' && parent.tag === outer)
  )
    return false;
  for (let j = ancestors.length - 1; j >= 0 && ancestors[j].start === call.start; j--)
    if (ancestors[j].type === 'ExpressionStatement') return false;
  return true;
}

/**
 * For each statement list (a block's, a function body's, the program's), the names something in it
 * assigns to (`f = …`, `f++`, `var f = …`, a `for` head, a destructuring target, a function declared
 * again in an inner list; every name under a direct `eval`, a `with` or a write to `arguments[…]`),
 * among the names a `__name(f, "f")` may drop: a declaration so named may not hold its function when
 * its `__name` runs, so its wrapper stays. Inner scopes that declare the name again are not told
 * apart: a write anywhere below the list counts.
 */
function writesByList(ast) {
  const candidates = new Set();
  walk(ast, (node) => {
    if (isNameCall(node) && node.arguments[0].type === 'Identifier') candidates.add(node.arguments[1].value);
  });
  const writes = new Map();
  const lists = [];
  const writeAll = (name) => {
    for (const list of lists) writes.get(list).add(name);
  };
  const target = (node) => {
    if (!node) return;
    if (node.type === 'Identifier') {
      if (candidates.has(node.name)) writeAll(node.name);
    } else if (node.type === 'ParenthesizedExpression') target(node.expression);
    else if (node.type === 'ObjectPattern')
      for (const p of node.properties) target(p.type === 'Property' ? p.value : p);
    else if (node.type === 'ArrayPattern') for (const e of node.elements) target(e);
    else if (node.type === 'RestElement') target(node.argument);
    else if (node.type === 'AssignmentPattern') target(node.left);
    // In sloppy code `arguments[0] = …` writes the parameter it maps, whatever its name.
    else if (node.type === 'MemberExpression' && node.object.type === 'Identifier' && node.object.name === 'arguments')
      for (const name of candidates) writeAll(name);
  };
  walk(
    ast,
    (node) => {
      // A function declared in an inner list writes the outer lists' name too (sloppy code's Annex B).
      if (node.type === 'FunctionDeclaration' && candidates.has(node.id.name))
        for (const list of lists.slice(0, -1)) writes.get(list).add(node.id.name);
      if (Array.isArray(node.body)) {
        lists.push(node);
        writes.set(node, new Set());
      }
      if (node.type === 'AssignmentExpression') target(node.left);
      else if (node.type === 'UpdateExpression') target(node.argument);
      else if (node.type === 'VariableDeclarator' && node.init) target(node.id);
      else if (node.type === 'ForInStatement' || node.type === 'ForOfStatement')
        target(node.left.type === 'VariableDeclaration' ? node.left.declarations[0].id : node.left);
      // What a direct eval or a `with` writes cannot be read off the text.
      else if (
        node.type === 'WithStatement' ||
        (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'eval')
      )
        for (const name of candidates) writeAll(name);
    },
    (node) => {
      if (Array.isArray(node.body)) lists.pop();
    },
  );
  return writes;
}

/** Depth-first over the syntax tree: `enter` before a node's children, `leave` after. */
function walk(node, enter, leave) {
  enter(node);
  for (const key in node) {
    const child = node[key];
    if (Array.isArray(child)) {
      for (const item of child) if (isNode(item)) walk(item, enter, leave);
    } else if (isNode(child) && key !== 'type') walk(child, enter, leave);
  }
  leave?.(node);
}
