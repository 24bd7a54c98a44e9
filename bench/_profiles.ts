import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeStart, eventually, instancesDir, profileDirs } from '../tests/helpers/browser.ts';
import { endAndWaitForSave, startWith } from '../tests/helpers/profiles.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { ms, percentile, printTable } from './_stats.ts';

/**
 * Starting a browser from a saved profile (decision 0106) against a start without one: /start to
 * the browser's id with the service's defaults (a warm pool, and a browser started ahead from each
 * profile started from: warm-profiles.ts), and with neither (every start cold, as a profile's first
 * start on a node is). Profiles of 10 MB and 100 MB of incompressible IndexedDB data.
 */
const RUNS = 15;
const SIZES_MB = [10, 100];
const TARGET_10MB_MS = 150;

/** Make profile `name` hold `mb` MB: a persisting browser, a file written into its IndexedDB as its
 * uid would, then its save (on a service with nothing warm: the start's folder is the one new). */
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

/** Browsers started ahead from profiles, ready now. */
async function warmProfiles(service: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return Number(/^periscope_profile_warm_browsers (\d+)$/m.exec(text)?.[1] ?? 0);
}

async function startOnce(service: ServiceProcess, token: string, query: string, pool: number, ahead: number): Promise<number> {
  // Each sample begins with the pool full, a browser started ahead from each profile (`ahead`) and
  // the next launch prepared: what a client finds on an idle service.
  await eventually(
    async () => {
      const h = (await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { warm: number; live: number; prepared: number } };
      const ready = await warmProfiles(service);
      return (
        h.browsers.warm === pool &&
        ready === ahead &&
        h.browsers.live === 0 &&
        h.browsers.prepared === 1 &&
        profileDirs(service.dataDir).length === pool + ahead
      );
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
  // The profiles are made once, then timed on the same data by a service with the defaults (2
  // warm, 2 profiles started ahead) and one with nothing warm at all.
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-bench-profiles-'));
  const maker = await startService({ DATA_DIR: dataDir, BROWSER_POOL_SIZE: '0', BROWSER_PROFILE_WARM: '0', BROWSER_PROFILE_MAX_MB: '200' });
  let token: string;
  let saves: string[];
  try {
    token = maker.createKey({ maxInstances: 10 }).token;
    for (const mb of SIZES_MB) await makeProfile(maker, token, `p${mb}`, mb);
    saves = maker.logs
      .filter((l) => l.msg === 'profile saved')
      .map((l) => `${Math.round((l.bytes as number) / 1e6)} MB in ${l.ms as number} ms`);
  } finally {
    await maker.stop();
  }
  console.error(`saves ${saves.join(', ')}`);
  for (const pool of [2, 0]) {
    const ahead = pool ? SIZES_MB.length : 0;
    const service = await startService({
      DATA_DIR: dataDir,
      BROWSER_POOL_SIZE: String(pool),
      BROWSER_PROFILE_WARM: String(ahead),
      BROWSER_PROFILE_MAX_MB: '200',
    });
    try {
      const queries = [['no profile', ''], ...SIZES_MB.map((mb) => [`profile of ${mb} MB`, `profile=p${mb}`])] as const;
      // Not counted: the first start from each profile after it was made.
      for (const [, q] of queries) await startOnce(service, token, q, pool, ahead);
      const samples = Object.fromEntries(queries.map(([label]) => [label, [] as number[]]));
      for (let i = 0; i < RUNS; i++)
        for (const [label, q] of queries) samples[label]!.push(await startOnce(service, token, q, pool, ahead));
      for (const [label] of queries) {
        figures[`${pool}:${label}`] = samples[label]!;
        rows.push({
          pool: pool ? `${pool} warm, ${ahead} from profiles` : 'none (cold)',
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
      console.error(`pool ${pool}: restores ${restores.join(', ')}`);
    } finally {
      await service.stop();
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
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
