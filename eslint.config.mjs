// ESLint (flat config): the recommended rules of ESLint and typescript-eslint, no style rules — formatting
// is not checked here. One house rule: process.exit only in entry points (a deeper module returns an exit code).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A leading underscore marks a binding kept on purpose (an unused callback argument, a field dropped by a rest copy).
const UNUSED = { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true };

/** Processes start here; only these may end the process with process.exit. */
const ENTRY_POINTS = [
  'bin/app.ts',
  'scripts/cli.ts',
  'scripts/report-cli.ts',
  'scripts/bench.ts',
  'scripts/soak.ts',
  'scripts/leftovers.ts',
  'scripts/report-screenshot.ts',
  'scripts/launch.js',
  // The pre-run check's child process that loads a user's processor (scripts/script-check.ts).
  'scripts/processor-probe.js',
  // The child process that loads a user's .js test script (scripts/script-file.ts).
  'scripts/script-probe.js',
  'target-stack/app/server.js',
  'load-generators/agent.js',
  // The rig's entry into each Artillery load process: it ends the process when its agent is gone.
  'load-generators/plugins/artillery-plugin-rig/index.js',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'runs/**', 'test-artifacts/**', '.venv/**', 'coverage/**'] },
  {
    files: ['**/*.{ts,js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', UNUSED],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']",
          message: 'process.exit only in entry points: return an exit code (or set process.exitCode) and let the entry point end the process.',
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: { '@typescript-eslint/no-unused-vars': ['error', UNUSED] },
  },
  {
    files: ['test/**'],
    languageOptions: { globals: { ...globals.jest } },
    // Tests assert field by field on JSON another process printed (the CLI's --json, the target's /metrics and
    // events); `any` there is the parsed wire format, and a wrong field fails the assertion that reads it.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Small functions and files (issue 16): every function ≤ 80 lines and every file ≤ 300 in the code that runs.
    files: ['scripts/**', 'lib/**', 'target-stack/**', 'load-generators/**', 'bin/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ENTRY_POINTS,
    rules: { 'no-restricted-syntax': 'off' },
  },
);
