// ESLint flat config: typescript-eslint's recommended rules over every package and service.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import workspaces from './scripts/eslint/workspace-imports.js';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.local/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', performance: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'TSEnumDeclaration', message: 'Enums are not erasable syntax; use an as-const object.' }],
    },
  },
  // The README's layering: another workspace only by package name, declared in package.json, to a
  // subpath it exports (scripts/eslint/workspace-imports.js).
  { files: ['**/*.{ts,js,mjs}'], plugins: { workspaces }, rules: { 'workspaces/imports': 'error' } },
  // Functions stay short enough to read at once: a longer one is split into named steps. Tests,
  // test harnesses and benchmarks are exempt (a test reads top to bottom as one scenario).
  {
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', 'test/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // Browser modules the services serve to pages (no build step): they run in the browser.
  { files: ['**/assets/**/*.js'], languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', DOMParser: 'readonly', EventSource: 'readonly', FormData: 'readonly', location: 'readonly', history: 'readonly' } } },
  // mongosh scripts mounted into Kubernetes Jobs: they run in mongosh, which provides these.
  { files: ['k8s/**/*.js'], languageOptions: { globals: { rs: 'readonly', print: 'readonly', db: 'readonly' } } },
);
