import { readdirSync, readFileSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { PREPARED_PREFIX } from '#service/browser/instance-folders.ts';
import { processesOfUids } from '#service/browser/sandbox/uids.ts';
import { defaultInstancesDir, defaultUidBase } from '#service/config.ts';
import { eventually } from './eventually.ts';

export { eventually };

export type StartedBrowser = {
  id: string;
  socket: WebSocket;
  headers: Record<string, string>;
  /** Resolves with the close code and reason when the service closes /start. */
  closed: Promise<{ code: number; reason: string }>;
};

/** Open /start the way any client does and read the browser id from the first message; `extra` headers go with it. */
export function openStart(wsUrl: string, token: string, extra: Record<string, string> = {}): Promise<StartedBrowser> {
  const socket = new WebSocket(`${wsUrl}/start`, { headers: { ...extra, authorization: `Bearer ${token}` } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('message', (data, isBinary) => {
      if (isBinary) return reject(new Error('the browser id came as a binary message'));
      const id = data.toString();
      resolve({ id, socket, closed, headers: { authorization: `Bearer ${token}`, 'x-browser-id': id } });
    });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`/start answered ${res.statusCode}: ${body}`), { status: res.statusCode, body, headers: res.headers }),
        ),
      );
    });
    socket.once('error', reject);
  });
}

/** The refusal of a /start upgrade: status, headers and JSON body. */
export async function refusedStart(
  wsUrl: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }> {
  const socket = new WebSocket(`${wsUrl}/start`, { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Record<string, unknown>, headers: res.headers }),
      );
    });
    socket.once('error', () => {});
  });
}

/** Close /start as a client does and wait until the service has let go of the instance. */
export async function closeStart(httpUrl: string, started: StartedBrowser): Promise<void> {
  started.socket.close();
  await started.closed;
  await eventually(
    async () => (await fetch(`${httpUrl}/json/version`, { headers: started.headers })).status,
    (s) => s === 404,
  );
}

export async function debuggerUrl(httpUrl: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${httpUrl}/json/version`, { headers });
  if (!res.ok) throw new Error(`/json/version answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl;
}

/** Where a service on this DATA_DIR keeps its instances' folders (by default). */
export const instancesDir = (dataDir: string): string => defaultInstancesDir(defaultUidBase(dataDir));

/**
 * Instance folders the service holds under DATA_DIR (pool and live instances). The launch the
 * service keeps prepared ahead (`ready-…`, no Chromium yet) is counted only `withPrepared`: a
 * service that runs always has one, one that stopped none.
 */
export function profileDirs(dataDir: string, o: { withPrepared?: boolean } = {}): string[] {
  try {
    return readdirSync(instancesDir(dataDir)).filter((name) => o.withPrepared || !name.startsWith(PREPARED_PREFIX));
  } catch {
    return [];
  }
}

/** The uids of the prepared launches' sandboxes (the owners of their home folders). */
function preparedUids(dataDir: string): Set<number> {
  const uids = new Set<number>();
  for (const name of profileDirs(dataDir, { withPrepared: true })) {
    if (!name.startsWith(PREPARED_PREFIX)) continue;
    try {
      uids.add(statSync(`${instancesDir(dataDir)}/${name}/home`).uid);
    } catch {
      // started or discarded meanwhile
    }
  }
  return uids;
}

/**
 * Processes of this DATA_DIR's browsers still running: those of its instance uids (sandboxed) and
 * those whose command line names its instance folders (single-tenant). Those of the launch
 * prepared ahead (a sandbox waiting to become Chromium) are counted only `withPrepared`.
 */
export async function chromiumProcesses(dataDir: string, o: { withPrepared?: boolean } = {}): Promise<number[]> {
  const base = defaultUidBase(dataDir);
  const waiting = o.withPrepared ? new Set<number>() : preparedUids(dataDir);
  const byUid = (await processesOfUids(base, base + 2048)).filter((p) => !waiting.has(p.uid)).map((p) => p.pid);
  const needle = instancesDir(dataDir);
  const pids = readdirSync('/proc').filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  const read = (pid: string, file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'latin1');
    } catch {
      return '';
    }
  };
  // Single-tenant: only the browser process names the folder; its helpers share its process group.
  const leaders = new Set(pids.filter((p) => read(p, 'cmdline').includes(needle)));
  const fields = (p: string) =>
    read(p, 'stat')
      .replace(/^.*\) /, '')
      .split(' ');
  const byPath = pids
    .filter((p) => {
      const [state, , group] = fields(p);
      return state !== 'Z' && (leaders.has(p) || leaders.has(group ?? ''));
    })
    .map(Number);
  return [...new Set([...byUid, ...byPath])];
}

/** SIGKILL each process; one that already went with its parent (ESRCH) is what we wanted anyway. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}
