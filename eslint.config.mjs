// Lint rules, including the import boundaries between the top-level folders
// (docs/decisions/0002-layers-and-import-boundaries.md):
//   app/    the Next.js portal UI      may import lib/, never server/
//   lib/    domain logic               imports neither app/ nor server/
//   server/ processes, routes, sockets may import lib/, never app/
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const boundary = (message, ...groups) => ({
  'no-restricted-imports': ['error', { patterns: groups.map((group) => ({ group, message })) }],
});

export default tseslint.config(
  { ignores: ['node_modules/', '.next/', 'data/', 'test-results/', 'playwright-report/', 'next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['lib/**'],
    rules: boundary('lib/ holds domain logic and must not depend on app/ or server/.', ['**/app/**', '**/server/**', '@/app/**', '@/server/**']),
  },
  {
    files: ['app/**'],
    rules: boundary('app/ must not import server/: reach the server through routes and sockets.', ['**/server/**', '@/server/**']),
  },
  {
    files: ['server/**'],
    rules: boundary('server/ must not import app/: the portal UI is built by Next.', ['**/app/**', '@/app/**']),
  },
);
