import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { chromiumProcesses, eventually, profileDirs } from '../helpers/browser.ts';
import { ROOT } from '../helpers/service.ts';

/**
 * `npm start` stopped every way a supervisor or a person stops it: docker and Kubernetes signal
 * the container's first process alone; a terminal's Ctrl+C and `kill -- -PGID` signal the process
 * group (the command, the service and the portal each receive it, and the command forwards it
 * again); systemd signals every process of the unit, browsers included. Every way must run the
 * shutdown: /start clients get 1001, and no browser is left.
 */
const PORT = 3460;

/** Signal a process that may already be gone (a browser's helper ends with its browser). */
function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

const WAYS = [
  { signal: 'SIGTERM', to: 'its process group' },
  { signal: 'SIGINT', to: 'its process group' },
  { signal: 'SIGTERM', to: 'the command alone, as docker stop and Kubernetes send it' },
  { signal: 'SIGTERM', to: "every process, browsers too, as systemd's control-group stop" },
] as const;

for (const { signal, to } of WAYS) {
  test(`npm start ends cleanly on ${signal} to ${to}`, async () => {
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

      const browsers = await chromiumProcesses(dataDir);
      expect(browsers.length).toBeGreaterThan(0);
      if (to.startsWith('every process')) {
        // systemd signals them in no set order: the worst is the browsers a moment before the service.
        for (const pid of browsers) killQuietly(pid, signal);
        await new Promise((r) => setTimeout(r, 50));
      }
      if (to.startsWith('the command')) process.kill(app.pid as number, signal);
      else process.kill(-(app.pid as number), signal);
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
          () => chromiumProcesses(dataDir, { withPrepared: true }),
          (p) => p.length === 0,
        ),
      ).toEqual([]);
      expect(profileDirs(dataDir, { withPrepared: true })).toEqual([]);
    } finally {
      if (app.exitCode === null) process.kill(-(app.pid as number), 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
