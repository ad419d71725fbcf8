// ESLint for the whole repository (typescript-eslint's recommended rules), with formatting left to
// Prettier (eslint-config-prettier turns off the rules it owns). `npm run lint` runs both.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import clientValues from './eslint-rules/no-unknown-coercion.mjs';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'tools/conformance/**',
      'bench/node_modules/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // Unused bindings are errors, except those named to be ignored (`_req`) and rest siblings
      // used to omit a key from an object.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Class metatypes are `Function` in Nest's and class-validator's own APIs (Reflector targets,
      // validation metadata), and the code keys its maps by them.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // Control characters in patterns are deliberate: inputs are checked for them (NUL, C0).
      'no-control-regex': 'off',
    },
  },
  {
    // CommonJS scripts (the production bundle's loader, scripts/bundle-loader.cjs): require is their import.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Issue 34: no coercion of a value typed unknown/any (request params, headers, caught errors) in
    // the product's sources: a client can make String(x) or `${x}` throw. The rule reads types, so
    // these files are linted with the TypeScript program (the nearest tsconfig.json of each file).
    files: ['src/**/*.ts', 'libs/mcp/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.d.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { kadu: clientValues },
    rules: { 'kadu/no-unknown-coercion': 'error' },
  },
  {
    // Issue 30: small single-purpose files (docs/contributors/architecture.md). Blank lines and
    // comments count: a file is read whole.
    files: ['libs/mcp/src/**/*.ts', 'src/**/*.ts'],
    ignores: ['**/*.d.ts'],
    rules: { 'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['libs/mcp/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.d.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Tests use Vitest's globals (describe, it, expect), as vitest.config.mts enables them.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'libs/*/test/**/*.ts'],
    languageOptions: { globals: { ...globals.vitest } },
    // Tests read untyped JSON answers (supertest bodies, SDK results).
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The package's testing entry hands tests the untyped JSON of stream messages (as above), but
    // runs under any test runner: no Vitest globals there.
    files: ['libs/*/src/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Issue 34: properties run only through checkProperty (test/support/properties.ts and its
    // copy in libs/mcp/test/support), on the suite's fixed seed; never fc.assert/fc.check directly.
    files: ['**/*.ts', '**/*.mts', '**/*.mjs'],
    ignores: ['test/support/properties.ts', 'libs/mcp/test/support/properties.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='fc'][callee.property.name=/^(assert|check)$/]",
          message: 'Run properties with checkProperty (test/support/properties.ts): a fixed seed, printed on failure.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'fast-check',
              importNames: ['assert', 'check'],
              message:
                'Run properties with checkProperty (test/support/properties.ts): a fixed seed, printed on failure.',
            },
          ],
        },
      ],
    },
  },
  {
    // Browser scripts served by the pages and the tests' in-page code.
    files: ['**/*.browser.js', 'bench/**/*.mjs', 'scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  prettier,
);
