import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { resolveChromium } from '#service/browser/executable.ts';
import { E2E_BASE_URL } from './tests/helpers/portal-env.ts';

// Browsers cannot be downloaded here: use the system Chromium or the npm-installed headless shell.
const chromium = await resolveChromium(process.env.CHROME_PATH);
// Node 24 from npm (the system one may be older and cannot run .ts).
const node = existsSync('node_modules/.bin/node') ? 'node_modules/.bin/node' : 'node';
const root = typeof process.getuid === 'function' && process.getuid() === 0;

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  use: {
    baseURL: E2E_BASE_URL,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromium.path,
      args: [
        ...(root ? ['--no-sandbox'] : []),
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // The real `npm start` (server/main.ts: service + portal), built by `next build` in test:e2e.
    command: `${node} tests/e2e/serve.ts`,
    url: `${E2E_BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
  },
});
