import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E2E_DATA_DIR, e2eEnv } from '../helpers/portal-env.ts';

/** Playwright's web server: `npm start` (server/main.ts) on a fresh DATA_DIR with the test environment. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
rmSync(E2E_DATA_DIR, { recursive: true, force: true });
const child = spawn(process.execPath, [join(root, 'server/main.ts')], { cwd: root, stdio: 'inherit', env: { ...process.env, ...e2eEnv } });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => {
  rmSync(E2E_DATA_DIR, { recursive: true, force: true });
  process.exit(code ?? 1);
});
