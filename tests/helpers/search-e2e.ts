import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { E2E_BASE_URL, E2E_DATA_DIR, E2E_PORT, E2E_SERVICE_PORT, e2eEnv } from './portal-env.ts';
import { CORPUS, runIndex, sliceCorpus } from './search.ts';
import { ROOT } from './service.ts';

/**
 * For the search page's end-to-end tests: a slice of the corpus indexed into the running app's
 * DATA_DIR, the service's own request counter, keys made with the service's CLI, and a second
 * service + portal pair whose upstream can fail for real.
 */

/** The Python documentation's asyncio, json and glossary pages: a few dozen pages, indexed in seconds. */
const SLICE = join(tmpdir(), 'periscope-e2e-search-slice.warc.gz');
const inSlice = (uri: string) => /^https:\/\/docs\.python\.org\/3[^/]*\/(library\/(asyncio|json)[\w-]*\.html|glossary\.html)$/i.test(uri);

export async function indexCorpusSlice(indexPath = join(E2E_DATA_DIR, 'index.db')): Promise<string> {
  if (!existsSync(SLICE)) {
    const tmp = `${SLICE}.${process.pid}`;
    await sliceCorpus(tmp, inSlice);
    renameSync(tmp, SLICE);
  }
  const r = runIndex(E2E_DATA_DIR, [SLICE, '--quiet'], { SEARCH_INDEX_PATH: indexPath });
  if (r.status !== 0) throw new Error(`indexing the corpus slice failed: ${r.stderr}`);
  return r.stdout;
}

/** A consistent copy of an index file (VACUUM INTO), put in place in one rename. */
export function copyIndex(from: string, to: string): void {
  const tmp = `${to}.copy`;
  rmSync(tmp, { force: true });
  const db = new DatabaseSync(from, { readOnly: true });
  db.exec(`VACUUM INTO '${tmp.replace(/'/g, "''")}'`);
  db.close();
  renameSync(tmp, to);
}

/** How many POST /v0/search requests a service has answered, from its own /metrics. */
export async function serviceSearchCount(serviceUrl: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^periscope_http_requests_total\{[^}]*route="\/v0\/search"[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

function keysCli(args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'server/cli/keys.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: E2E_DATA_DIR },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`keys ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** A key issued by the service's CLI with its own limit. */
export function cliKey(name: string, ratePerMinute: number): string {
  return keysCli(['create', '--name', name, '--rate-per-minute', String(ratePerMinute)])
    .trim()
    .split('\n')
    .pop() as string;
}

/** Revoke a key at the service only (the portal's vault still holds it as usable). */
export function revokeAtService(token: string): void {
  const id = token.split('_')[1] ?? '';
  keysCli(['revoke', id]);
}

export type Pair = { portalUrl: string; serviceUrl: string; indexPath: string; stop(): Promise<void> };

function waitForLine(child: ChildProcess, text: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${out.slice(-2000)}`)), 90_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${out.slice(-2000)}`));
    });
  });
}

/**
 * A second service on the same DATA_DIR (so the same keys) whose index file starts out broken
 * (the service answers 502), with a short rate window; and a second portal (same accounts and
 * sessions) whose SEARCH_URL points at it.
 */
export async function startFlakyPair(): Promise<Pair> {
  const indexPath = join(tmpdir(), `periscope-e2e-${E2E_PORT}-flaky-index.db`);
  rmSync(indexPath, { force: true });
  spawnSync('sh', ['-c', `printf 'this is not a database, it is junk\\n%.0s' $(seq 1 200) > '${indexPath}'`]);
  return startPair(indexPath, { service: E2E_PORT + 6, portal: E2E_PORT + 5 }, { SEARCH_RATE_WINDOW_SECONDS: '6' });
}

/** The whole corpus, indexed into an index of its own (a minute or two), and a service + portal
 * pair that searches it: for tests of ranking as people meet it in the page. */
export async function startCorpusPair(): Promise<Pair> {
  const indexPath = join(tmpdir(), `periscope-e2e-${E2E_PORT}-corpus-index.db`);
  rmSync(indexPath, { force: true });
  const r = runIndex(E2E_DATA_DIR, [join(CORPUS, 'docs.warc.gz'), '--quiet'], { SEARCH_INDEX_PATH: indexPath });
  if (r.status !== 0) throw new Error(`indexing the corpus failed: ${r.stderr}`);
  return startPair(indexPath, { service: E2E_PORT + 8, portal: E2E_PORT + 7 }, {});
}

/** A service on `indexPath` and a portal that searches it (signing in and keys as the main pair's:
 * the same DATA_DIR); stop() ends both and removes the index. */
async function startPair(indexPath: string, ports: { service: number; portal: number }, serviceEnv: Record<string, string>): Promise<Pair> {
  const base = { ...process.env, ...e2eEnv, LOG_LEVEL: 'info' };
  const service = spawn(process.execPath, [join(ROOT, 'server/service/main.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...base, SERVICE_PORT: String(ports.service), SEARCH_INDEX_PATH: indexPath, ...serviceEnv },
  });
  const children: ChildProcess[] = [service];
  const stop = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))));
    rmSync(indexPath, { force: true });
  };
  try {
    await waitForLine(service, 'service listening', 'the second service');
    const portal = spawn(process.execPath, [join(ROOT, 'server/portal/main.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...base,
        PORT: String(ports.portal),
        SERVICE_PORT: String(E2E_SERVICE_PORT),
        SEARCH_URL: `http://127.0.0.1:${ports.service}`,
        NEXTAUTH_URL: `http://127.0.0.1:${ports.portal}`,
      },
    });
    children.push(portal);
    await waitForLine(portal, 'portal listening', 'the second portal');
  } catch (err) {
    await stop();
    throw err;
  }
  return { portalUrl: `http://127.0.0.1:${ports.portal}`, serviceUrl: `http://127.0.0.1:${ports.service}`, indexPath, stop };
}

export const MAIN_INDEX = join(E2E_DATA_DIR, 'index.db');
export { E2E_BASE_URL };
