// Lint rules, including the import boundaries between owners
// (docs/decisions/0060-code-sorted-by-owner.md, which extends 0002):
//   lib/shared/   used by both processes         imports neither lib/service/ nor lib/portal/
//   lib/service/  the browser and search service  imports lib/shared/
//   lib/portal/   the portal's domain             imports lib/shared/ only: it reaches the service over its
//                                                 interfaces (keys through the operator interface, decision 0107)
//   lib/mcp/      the MCP server (decision 0101)  imports lib/shared/ and packages: it reaches the service
//                                                 only over its public interface, through @periscope/client
//   server/service/, server/portal/  each process's routes and sockets, over its own lib/ folder
//                                    (the service's /mcp serves lib/mcp/; so does server/cli/mcp.ts)
//   server/http/  the HTTP plumbing both servers share: lib/shared/ only
//   app/, proxy.ts  the Next.js portal UI: lib/portal/ and lib/shared/, never server/
// Across owners, imports use the package's `#shared/`, `#service/`, `#portal/` names, so the rule can
// read the owner from the name; a relative path that climbs into another owner is refused as well.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A specifier that reaches one of `owners`, by `#name/` or by a relative path climbing into it. */
const into = (owners, { except } = {}) => ({
  regex: `^(?:#(?:${owners.join('|')})/${except ? `(?!${except}$)` : ''}|(?:\\.\\.?/)+(?:lib/)?(?:${owners.join('|')})/)`,
});

const boundary = (files, message, owners, options) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ ...into(owners, options), message }] }] },
});

export default tseslint.config(
  { ignores: ['node_modules/', 'clients/*/dist/', '.next/', 'data/', 'test-results/', 'playwright-report/', 'next-env.d.ts'] },
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
  boundary(['lib/shared/**'], 'lib/shared/ serves both processes and depends on neither.', ['service', 'portal', 'app', 'server', 'mcp']),
  boundary(['lib/service/**'], "lib/service/ is the service's own: it may use lib/shared/, never the portal, app/ or server/.", [
    'portal',
    'app',
    'server',
    'mcp',
  ]),
  boundary(
    ['lib/portal/**'],
    'lib/portal/ may use lib/shared/ only; it reaches the service over its interfaces (keys: the operator interface, decision 0107).',
    ['service', 'app', 'server'],
  ),
  boundary(
    ['lib/mcp/**'],
    'lib/mcp/ is a client of the public interface: it may use lib/shared/ and packages (@periscope/client), never the service, the portal, app/ or server/.',
    ['service', 'portal', 'app', 'server'],
  ),
  boundary(['server/cli/mcp.ts'], 'The stdio MCP server uses lib/mcp/ and lib/shared/ only.', ['service', 'portal', 'app']),
  boundary(
    ['app/**', 'proxy.ts'],
    'The portal UI uses lib/portal/ and lib/shared/, and reaches the server only through routes and sockets.',
    ['service', 'server'],
  ),
  boundary(
    ['server/service/**', 'server/cli/keys.ts', 'server/cli/index.ts', 'server/cli/host-setup.ts'],
    "The service's process uses lib/service/ and lib/shared/, never the portal.",
    ['portal', 'app'],
  ),
  boundary(
    ['server/portal/**', 'server/cli/portal-*.ts'],
    "The portal's process uses lib/portal/ and lib/shared/; it reaches the service over its public interface.",
    ['service', 'app'],
  ),
  boundary(['server/http/**', 'server/*.ts', 'server/cli/rotate-secret.ts'], 'Shared server plumbing depends on neither process.', [
    'service',
    'portal',
    'app',
  ]),
  // A controlled text input or select of the portal keeps what was typed or chosen before the page
  // hydrated only as app/_ui's Input and Select (decisions 0115, 0116).
  {
    files: ['app/**/*.tsx'],
    ignores: ['app/_ui/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXOpeningElement[name.name='select']:has(JSXAttribute[name.name='value'])",
          message: "A controlled select is app/_ui/select.tsx's Select (decision 0115): it keeps a choice made before hydration.",
        },
        {
          selector:
            "JSXOpeningElement[name.name='input']:has(JSXAttribute[name.name='value']):has(JSXAttribute[name.name='onChange']):not(:has(JSXAttribute[name.name='type'][value.value=/^(?:range|radio|checkbox)$/]))",
          message: "A controlled text input is app/_ui/input.tsx's Input (decision 0116): it keeps what was typed before hydration.",
        },
      ],
    },
  },
);
