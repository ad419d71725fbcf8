// A local ESLint rule (issue 34): a value whose static type is `unknown` or `any` (a request's
// params, a header's body twin, a caught error) must not be coerced: not by `String(x)` (nor
// Number, parseInt, encodeURIComponent...), a template literal `${x}`, `'' + x`, `s += x`, a
// computed key `obj[x]` or `re.test(x)`; nor asserted `as string`, which hides it from those
// checks. A coercion calls the value's own `toString`/`valueOf`, which a client controls through
// JSON: `{"toString":false}` makes it throw, an internal error where a wrong string answers -32602.
// Read such values through the pure core's helpers instead (libs/mcp/src/protocol/client-values.ts:
// `stringField`, `stringParam`, `describeValue`). The rule needs type information (typescript-eslint's
// parser services): eslint.config.mjs enables it for the product's sources.
import ts from 'typescript';

/** @param {import('typescript').Type} type */
function isUnknownOrAny(type) {
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return true;
  // A union that contains `unknown`/`any` collapses to it; a type parameter is checked by its
  // constraint (an unconstrained `T` is `unknown`).
  if (type.flags & ts.TypeFlags.TypeParameter) {
    const constraint = type.getConstraint?.();
    return !constraint || isUnknownOrAny(constraint);
  }
  return false;
}

/** Globals that coerce their first argument (ToString or ToNumber, both of which call toString/valueOf). */
const CONVERTERS = new Set(['String', 'Number', 'BigInt', 'parseInt', 'parseFloat', 'encodeURIComponent', 'encodeURI']);

/** @type {import('eslint').Rule.RuleModule} */
export const noUnknownCoercion = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Forbid String(x), `${x}` and "" + x on a value typed unknown or any (client values): use stringParam or describeValue',
    },
    messages: {
      assertion:
        '`as string` on a value typed {{type}} skips the type check a client value needs: check typeof first, or use stringParam() from protocol/client-values.ts.',
      coercion:
        '{{form}} coerces a value typed {{type}}: a client can make that throw (a non-callable toString). Check the type first, or use describeValue() from protocol/client-values.ts.',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) {
      throw new Error('no-unknown-coercion needs type information (parserOptions.projectService)');
    }
    const checker = services.program.getTypeChecker();
    const typeOf = (node) => checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
    const suspicious = (node) => {
      const type = typeOf(node);
      return isUnknownOrAny(type) ? checker.typeToString(type) : undefined;
    };
    const report = (node, form, type) => context.report({ node, messageId: 'coercion', data: { form, type } });
    // A regex literal is one by its syntax; anything else by its type (the checker's RegExp, which
    // needs the program's lib — the literal case must not depend on that).
    const isRegExp = (node) =>
      (node.type === 'Literal' && 'regex' in node) || checker.typeToString(typeOf(node)) === 'RegExp';
    return {
      CallExpression(node) {
        const arg = node.arguments[0];
        if (!arg || arg.type === 'SpreadElement') return;
        const { callee } = node;
        // String(x) and the other globals that turn their argument into a string or a number first.
        const converter = callee.type === 'Identifier' && CONVERTERS.has(callee.name) ? callee.name : undefined;
        // re.test(x) and re.exec(x) coerce x to a string too.
        const matcher =
          callee.type === 'MemberExpression' &&
          !callee.computed &&
          callee.property.type === 'Identifier' &&
          (callee.property.name === 'test' || callee.property.name === 'exec') &&
          isRegExp(callee.object)
            ? `RegExp#${callee.property.name}(x)`
            : undefined;
        const form = converter ? `${converter}(x)` : matcher;
        if (!form) return;
        const type = suspicious(arg);
        if (type) report(node, form, type);
      },
      MemberExpression(node) {
        // obj[x] turns x into a property key (its toString); a number or symbol key is not a client's.
        if (!node.computed || node.property.type === 'Literal') return;
        const type = suspicious(node.property);
        if (type) report(node.property, 'A computed property key obj[x]', type);
      },
      TemplateLiteral(node) {
        if (node.parent?.type === 'TaggedTemplateExpression') return;
        for (const expression of node.expressions) {
          const type = suspicious(expression);
          if (type) report(expression, 'A template literal', type);
        }
      },
      BinaryExpression(node) {
        if (node.operator !== '+') return;
        const isString = (n) => n.type === 'Literal' && typeof n.value === 'string';
        const isText = (n) => isString(n) || n.type === 'TemplateLiteral';
        for (const [side, other] of [
          [node.left, node.right],
          [node.right, node.left],
        ]) {
          if (!isText(other)) continue;
          const type = suspicious(side);
          if (type) report(side, "'' + x", type);
        }
      },
      'TSAsExpression, TSTypeAssertion'(node) {
        if (node.typeAnnotation.type !== 'TSStringKeyword') return;
        const type = suspicious(node.expression);
        if (type) context.report({ node, messageId: 'assertion', data: { type } });
      },
      AssignmentExpression(node) {
        if (node.operator !== '+=') return;
        const type = suspicious(node.right);
        if (type && !isUnknownOrAny(typeOf(node.left))) report(node.right, 's += x', type);
      },
    };
  },
};

export default { rules: { 'no-unknown-coercion': noUnknownCoercion } };
