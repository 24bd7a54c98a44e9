import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the end-to-end run puts the real app: fixed test ports (override with E2E_PORT) and a
 * DATA_DIR that tests/e2e/serve.ts empties before each run.
 */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3390);
export const E2E_SERVICE_PORT = E2E_PORT + 1;
export const E2E_OIDC_PORT = E2E_PORT + 2;
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_SERVICE_URL = `http://127.0.0.1:${E2E_SERVICE_PORT}`;
export const E2E_OIDC_ISSUER = `http://127.0.0.1:${E2E_OIDC_PORT}`;
export const E2E_DATA_DIR = join(tmpdir(), `periscope-e2e-${E2E_PORT}`);
export const E2E_OIDC_CLIENT = { id: 'periscope-e2e', secret: 'e2e-oidc-client-secret-0123456789abcdef' };
export const E2E_MAX_FAILURES = 5;

/** The environment `npm start` runs with in the end-to-end tests. */
export const e2eEnv: Record<string, string> = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(E2E_PORT),
  SERVICE_PORT: String(E2E_SERVICE_PORT),
  DATA_DIR: E2E_DATA_DIR,
  NEXTAUTH_URL: E2E_BASE_URL,
  LOG_LEVEL: 'warn',
  BROWSER_POOL_SIZE: '0',
  // The live-view tests open pages served on loopback, which remote browsers may not reach by default.
  BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
  SIGNIN_MAX_FAILURES: String(E2E_MAX_FAILURES),
  SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
  OIDC_ISSUER: E2E_OIDC_ISSUER,
  OIDC_CLIENT_ID: E2E_OIDC_CLIENT.id,
  OIDC_CLIENT_SECRET: E2E_OIDC_CLIENT.secret,
  OIDC_NAME: 'Test SSO',
};
