import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../tests/helpers/service.ts';

/** The service and the portal as two processes (as `npm start` runs them), with known pids. */
export type RunningApp = {
  portalUrl: string;
  serviceUrl: string;
  portal: ChildProcess;
  service: ChildProcess;
  stop(): Promise<void>;
};

function waitFor(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before "${text}"`)));
  });
}

export async function startApp(port: number, env: Record<string, string> = {}): Promise<RunningApp> {
  if (!existsSync(join(ROOT, '.next', 'BUILD_ID'))) {
    spawnSync(process.execPath, [join(ROOT, 'node_modules/next/dist/bin/next'), 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-bench-'));
  const portalUrl = `http://127.0.0.1:${port}`;
  const fullEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    SERVICE_PORT: String(port + 1),
    DATA_DIR: dataDir,
    NEXTAUTH_URL: portalUrl,
    LOG_LEVEL: 'info',
    BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
    ...env,
  };
  const service = spawn(process.execPath, [join(ROOT, 'server/service/main.ts')], {
    cwd: ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitFor(service, 'service listening');
  const portal = spawn(process.execPath, [join(ROOT, 'server/portal/main.ts')], {
    cwd: ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitFor(portal, 'portal listening');
  const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())));
  return {
    portalUrl,
    serviceUrl: `http://127.0.0.1:${port + 1}`,
    portal,
    service,
    async stop() {
      portal.kill('SIGTERM');
      await exited(portal);
      service.kill('SIGTERM');
      await exited(service);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sign up and sign in through the portal's own endpoints; returns the session cookie and team. */
export async function signedInUser(portalUrl: string): Promise<{ cookie: string; teamId: string }> {
  const email = `bench-${Date.now()}@example.test`;
  const password = 'correct horse battery staple';
  const json = { 'content-type': 'application/json' };
  const up = await fetch(`${portalUrl}/api/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Bench', email, password }),
  });
  if (!up.ok) throw new Error(`sign-up failed: ${up.status} ${await up.text()}`);
  const csrf = await fetch(`${portalUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = (pair ?? '').indexOf('=');
      if (i > 0) jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  keep(csrf);
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const signIn = await fetch(`${portalUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true' }),
  });
  keep(signIn);
  if (![...jar.keys()].some((k) => k.includes('session-token'))) throw new Error(`sign-in failed: ${signIn.status}`);
  const me = (await (await fetch(`${portalUrl}/api/me`, { headers: { cookie: cookie() } })).json()) as { currentTeamId: string };
  return { cookie: cookie(), teamId: me.currentTeamId };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
