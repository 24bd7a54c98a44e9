import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeStart, eventually, instancesDir, profileDirs } from '../tests/helpers/browser.ts';
import { endAndWaitForSave, startWith } from '../tests/helpers/profiles.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { ms, percentile, printTable } from './_stats.ts';

/**
 * Starting a browser from a saved profile (decision 0106) against a start without one: /start to
 * the browser's id with the service's defaults (a warm pool), and with no pool (every start cold,
 * as a profile's start always is). Profiles of 10 MB and 100 MB of incompressible IndexedDB data.
 */
const RUNS = 15;
const SIZES_MB = [10, 100];
const TARGET_10MB_MS = 150;

/** Make profile `name` hold `mb` MB: a persisting browser, a file written into its IndexedDB as its uid would, then its save. */
async function makeProfile(service: ServiceProcess, token: string, name: string, mb: number): Promise<void> {
  const known = new Set(profileDirs(service.dataDir));
  const started = await startWith(service.wsUrl, token, `profile=${name}&persist=1`);
  const folder = profileDirs(service.dataDir).find((n) => !known.has(n));
  if (!folder) throw new Error('no instance folder for the profile being made');
  const home = join(instancesDir(service.dataDir), folder, 'home');
  const uid = statSync(home).uid;
  const dir = join(home, 'profile', 'Default', 'IndexedDB', 'http_bench.indexeddb.blob');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < mb; i++) writeFileSync(join(dir, `blob-${i}`), randomBytes(1 << 20));
  for (const p of [join(home, 'profile', 'Default', 'IndexedDB'), dir]) chownSync(p, uid, uid);
  for (let i = 0; i < mb; i++) chownSync(join(dir, `blob-${i}`), uid, uid);
  await endAndWaitForSave(service.url, token, started, name);
}

async function startOnce(service: ServiceProcess, token: string, query: string, pool: number): Promise<number> {
  // Each sample begins with the pool full and the next launch prepared: what a client finds on an idle service.
  await eventually(
    async () => {
      const h = (await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { warm: number; live: number; prepared: number } };
      return h.browsers.warm === pool && h.browsers.live === 0 && h.browsers.prepared === 1 && profileDirs(service.dataDir).length === pool;
    },
    (ok) => ok,
    60_000,
  );
  const t0 = performance.now();
  const started = await startWith(service.wsUrl, token, query);
  const elapsed = ms(t0);
  await closeStart(service.url, started);
  return elapsed;
}

export async function measureProfiles(): Promise<void> {
  const loadAtStart = loadavg()[0]?.toFixed(2);
  const rows = [];
  const figures: Record<string, number[]> = {};
  for (const pool of [2, 0]) {
    const service = await startService({ BROWSER_POOL_SIZE: String(pool), BROWSER_PROFILE_MAX_MB: '200' });
    try {
      const token = service.createKey({ maxInstances: 10 }).token;
      for (const mb of SIZES_MB) await makeProfile(service, token, `p${mb}`, mb);
      const saves = service.logs
        .filter((l) => l.msg === 'profile saved')
        .map((l) => `${Math.round((l.bytes as number) / 1e6)} MB in ${l.ms as number} ms`);
      const queries = [['no profile', ''], ...SIZES_MB.map((mb) => [`profile of ${mb} MB`, `profile=p${mb}`])] as const;
      for (const [, q] of queries) await startOnce(service, token, q, pool); // not counted
      const samples = Object.fromEntries(queries.map(([label]) => [label, [] as number[]]));
      for (let i = 0; i < RUNS; i++) for (const [label, q] of queries) samples[label]!.push(await startOnce(service, token, q, pool));
      for (const [label] of queries) {
        figures[`${pool}:${label}`] = samples[label]!;
        rows.push({
          pool: pool ? `${pool} (warm)` : 'none (cold)',
          start: label,
          runs: samples[label]!.length,
          p50: percentile(samples[label]!, 0.5),
          p99: percentile(samples[label]!, 0.99),
          '+p50 vs no profile': percentile(samples[label]!, 0.5) - percentile(samples['no profile']!, 0.5),
        });
      }
      // The restore's own part (read, open, check, unpack), as the service timed it, per size.
      const restores = SIZES_MB.map((mb) => {
        const own = service.logs
          .filter(
            (l) =>
              l.msg === 'profile restored' &&
              Math.round((l.bytes as number) / 1e6) >= mb &&
              Math.round((l.bytes as number) / 1e6) < mb * 1.1 + 1,
          )
          .map((l) => l.ms as number);
        return `${mb} MB p50 ${percentile(own, 0.5)} ms over ${own.length}`;
      });
      console.error(`pool ${pool}: saves ${saves.join(', ')}; restores ${restores.join(', ')}`);
    } finally {
      await service.stop();
    }
  }
  printTable('/start to id from a saved profile, against a start without one (ms)', rows);
  const added = (pool: number) => percentile(figures[`${pool}:profile of 10 MB`]!, 0.5) - percentile(figures[`${pool}:no profile`]!, 0.5);
  console.log(
    `(load average ${loadAtStart} at start, ${loadavg()[0]?.toFixed(2)} at end)\na 10 MB profile adds ${added(2).toFixed(1)} ms p50 to a start on the default warm pool, ${added(0).toFixed(1)} ms to a cold start (target <= +${TARGET_10MB_MS} ms: ${added(2) <= TARGET_10MB_MS ? 'met' : 'MISSED'} / ${added(0) <= TARGET_10MB_MS ? 'met' : 'MISSED'})`,
  );
}

// Run alone with `node bench/_profiles.ts`; `npm run bench -- browser` runs it after the rest.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  await measureProfiles();
  process.exit(0);
}
