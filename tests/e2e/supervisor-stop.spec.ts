import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { chromiumProcesses, eventually, profileDirs } from '../helpers/browser.ts';
import { ROOT } from '../helpers/service.ts';

/**
 * `npm start` stopped as docker, systemd and Kubernetes stop it: a signal to its whole process
 * group, so the command, the service and the portal each receive it (and the command forwards it
 * again). Every way must run the shutdown: /start clients get 1001, and no browser is left.
 */
const PORT = 3460;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`npm start ends cleanly on ${signal} to its process group`, async () => {
    test.setTimeout(120_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-supervisor-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production' as const,
      HOST: '127.0.0.1',
      PORT: String(PORT),
      SERVICE_PORT: String(PORT + 1),
      DATA_DIR: dataDir,
      NEXTAUTH_URL: `http://127.0.0.1:${PORT}`,
      BROWSER_POOL_SIZE: '1',
      LOG_LEVEL: 'info',
      // Ctrl+C comes from a person at a terminal (readable lines and a banner); SIGTERM from a supervisor (JSON).
      LOG_FORMAT: signal === 'SIGINT' ? 'pretty' : 'json',
    };
    // Its own process group, as under a supervisor.
    const app = spawn(process.execPath, [join(ROOT, 'server/main.ts')], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    app.stdout.on('data', (c: Buffer) => (output += c.toString()));
    app.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => app.once('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => /portal listening/.test(output) && /service listening/.test(output), { timeout: 60_000 }).toBe(true);
      const key = spawnSync(process.execPath, [join(ROOT, 'server/cli/keys.ts'), 'create', '--name', 'sup'], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      })
        .stdout.trim()
        .split('\n')
        .pop() as string;
      const start = new WebSocket(`ws://127.0.0.1:${PORT + 1}/start`, { headers: { authorization: `Bearer ${key}` } });
      const closed = new Promise<number>((resolve) => start.once('close', (code) => resolve(code)));
      await new Promise((resolve, reject) => {
        start.once('message', resolve);
        start.once('error', reject);
      });
      expect((await chromiumProcesses(dataDir)).length).toBeGreaterThan(0);

      process.kill(-(app.pid as number), signal);
      expect(await closed).toBe(1001);
      expect(await exited).toBe(0);
      if (signal === 'SIGINT') {
        expect(output).toContain('Periscope is running');
        expect(output).toMatch(new RegExp(`Portal +http://127\\.0\\.0\\.1:${PORT} `));
        expect(output).toMatch(/^\d\d:\d\d:\d\d service +info +shut down/m);
        expect(output).not.toMatch(/^\{"level"/m);
      } else {
        expect(output).toMatch(/"msg":"shut down"/);
        expect(output).not.toContain('Periscope is running');
      }
      expect(
        await eventually(
          () => chromiumProcesses(dataDir),
          (p) => p.length === 0,
        ),
      ).toEqual([]);
      expect(profileDirs(dataDir)).toEqual([]);
    } finally {
      if (app.exitCode === null) process.kill(-(app.pid as number), 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
