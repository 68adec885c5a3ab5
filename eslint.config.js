// ESLint flat config: typescript-eslint's recommended rules over every package and service.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  // Browser modules the services serve to pages (no build step): they run in the browser.
  { files: ['**/assets/**/*.js'], languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', DOMParser: 'readonly', EventSource: 'readonly', FormData: 'readonly', location: 'readonly', history: 'readonly' } } },
  // mongosh scripts mounted into Kubernetes Jobs: they run in mongosh, which provides these.
  { files: ['k8s/**/*.js'], languageOptions: { globals: { rs: 'readonly', print: 'readonly', db: 'readonly' } } },
);
