import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { E2E_PORT, e2eEnv } from '../helpers/portal-env.ts';
import { startPageServer } from '../helpers/pages.ts';
import { createKey, newUser, signUp, teamIdOf } from '../helpers/portal.ts';

type Outcome = { opened: boolean; status?: number; closeCode?: number };

/** Open a socket and report whether it opened, or the HTTP status it was refused with. */
function probe(url: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.once('close', (code) => resolve({ opened: false, closeCode: code }));
    ws.once('error', () => {});
  });
}

test.describe('portal socket paths', () => {
  let child: ChildProcess;
  let base: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-sockets-'));

  test.beforeAll(async () => {
    // A portal of its own, so the first request to it can be a WebSocket (Next attaches its own
    // upgrade listener only after the first HTTP request; both orders must route the same).
    const port = E2E_PORT + 10;
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['server/portal/main.ts'], {
      env: { ...process.env, ...e2eEnv, PORT: String(port), DATA_DIR: dataDir, NEXTAUTH_URL: base, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('portal listening')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`portal exited with ${code}`)));
    });
  });
  test.afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('every socket path answers the same before and after the first HTTP request', async () => {
    const ws = base.replace('http', 'ws');
    const expectations: [string, Record<string, string>, Outcome][] = [
      [`${ws}/live/inst_AAAAAAAAAAAAAAAA`, { origin: base }, { opened: false, status: 401 }],
      [`${ws}/live/inst_AAAAAAAAAAAAAAAA`, { origin: 'http://evil.test' }, { opened: false, status: 403 }],
      [`${ws}/live/not-an-instance`, { origin: base }, { opened: false, status: 404 }],
      [`${ws}/events/team_AAAAAAAAAAAAAAAA`, { origin: base }, { opened: false, status: 401 }],
      [`${ws}/events/team_AAAAAAAAAAAAAAAA`, { origin: 'http://evil.test' }, { opened: false, status: 403 }],
      [`${ws}/teams`, { origin: base }, { opened: false, status: 404 }],
    ];
    for (const round of ['before', 'after']) {
      if (round === 'after') expect((await fetch(`${base}/signin`)).status).toBe(200);
      for (const [url, headers, outcome] of expectations) {
        expect(await probe(url, headers), `${round}: ${url}`).toEqual(outcome);
      }
    }
  });
});

test.describe('live socket under hostile input', () => {
  test('thousands of malformed messages: the portal stays up and another viewer is unaffected', async ({ page, context, baseURL }) => {
    const pages = await startPageServer();
    try {
      await signUp(page, newUser('fuzz'));
      const teamId = teamIdOf(page);
      await createKey(page, teamId, 'fuzz');
      const started = await page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Fuzzed' } });
      expect(started.status()).toBe(200);
      const { browser } = (await started.json()) as { browser: { id: string } };
      await page.goto(`/teams/${teamId}/browsers/${browser.id}`);
      await page.getByLabel('Address').fill(`${pages.url}live`);
      await page.getByLabel('Address').press('Enter');
      await expect(page.getByRole('tab', { selected: true })).toHaveText(/Live test page/);

      const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const url = `${baseURL!.replace('http', 'ws')}/live/${browser.id}`;
      const headers = { cookie, origin: baseURL! };
      const hostile: (string | Buffer)[] = [
        '',
        'null',
        '[]',
        '{}',
        '{"type":"hello","v":1}',
        '{"type":"nope"}',
        '{"__proto__":{"type":"navigate"}}',
        '{"type":"mouse","action":"down","x":1e999,"y":0}',
        '{"type":"key","action":"down","key":' + JSON.stringify('k'.repeat(500)) + ',"code":"KeyA"}',
        '{"type":"navigate","url":"file:///etc/passwd"}',
        '{"type":"navigate","url":"javascript:alert(1)"}',
        '{"type":"tab","action":"close","tabId":"../../etc"}',
        '{"type":"control","action":"grant","viewerId":"nobody"}',
        '{"type":"viewport","mode":"follow","width":100000,"height":-5}',
        '{"type":"text","text":""}',
        '\u0000\u0001\u0002',
        '{"type":"ping","t":"now"}',
        Buffer.from([0xff, 0xfe, 0x00]),
        Buffer.alloc(1024, 7),
      ];
      let seed = 11;
      const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      const types = [
        'mouse',
        'wheel',
        'key',
        'text',
        'compose',
        'touch',
        'navigate',
        'history',
        'tab',
        'dialog',
        'copy',
        'viewport',
        'control',
        'ping',
        'hello',
      ];
      const junk = [null, true, -1, 0, 1.5, 1e308, 'x', '', [], {}, 'left', 'down', 'open', 'switch'];
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
      for (let i = 0; i < 4000; i++) {
        const msg: Record<string, unknown> = { type: pick(types) };
        for (const k of [
          'action',
          'x',
          'y',
          'key',
          'code',
          'text',
          'url',
          'tabId',
          'points',
          'modifiers',
          'accept',
          'mode',
          'width',
          'height',
          'v',
          't',
        ]) {
          if (rand() < 0.4) msg[k] = pick(junk);
        }
        hostile.push(JSON.stringify(msg));
      }

      // Several hostile connections at once: one never says hello, one says hello first.
      const results = await Promise.all(
        [false, true, true].map(
          (hello, n) =>
            new Promise<{ errors: number; close: number }>((resolve) => {
              const ws = new WebSocket(url, { headers });
              let errors = 0;
              ws.on('message', (data, isBinary) => {
                if (!isBinary && (JSON.parse(data.toString()) as { type: string }).type === 'error') errors++;
              });
              ws.once('close', (code) => resolve({ errors, close: code }));
              ws.once('open', () => {
                if (hello) ws.send(JSON.stringify({ type: 'hello', v: 1 }));
                const batch = n === 2 ? [...hostile].reverse() : hostile;
                for (const m of batch) ws.send(m);
                // Finally one message over the size limit.
                ws.send('x'.repeat(70 * 1024));
              });
            }),
        ),
      );
      for (const r of results) {
        expect(r.errors).toBeGreaterThan(50);
        expect([1009, 4429]).toContain(r.close);
      }

      // A wrong protocol version is refused with its own close code.
      const version = await new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', v: 99 })));
        ws.once('close', (code) => resolve(code));
      });
      expect(version).toBe(4406);

      // The portal answers, and the real viewer still drives the page.
      expect((await page.request.get('/api/health')).status()).toBe(200);
      await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
      const canvas = page.getByRole('img', { name: /^Screen of/ });
      const box = (await canvas.boundingBox())!;
      await page.mouse.click(box.x + (150 / 1280) * box.width, box.y + (125 / 720) * box.height);
      await expect(page.getByRole('tab', { selected: true })).toHaveText(/clicked 1/);
      await page.request.delete(`/api/teams/${teamId}/browsers/${browser.id}`);
    } finally {
      await pages.close();
    }
  });
});
