import { cpus, loadavg } from 'node:os';
import type { Chromium } from '#service/browser/chromium.ts';
import { chromiumProcesses, closeStart, debuggerUrl, eventually, openStart, profileDirs } from '../tests/helpers/browser.ts';
import { RawCdp } from '../tests/helpers/cdp.ts';
import { startPageServer } from '../tests/helpers/pages.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { chromiumCpuMs, DirectChromiums, directProcesses, nextEvent, pssMb, withProcessGroups, type Mode } from './_direct.ts';
import { measureProfiles } from './_profiles.ts';
import { ms, percentile, printTable, type Row } from './_stats.ts';

/**
 * The browser service isolated (an instance per sandbox) and not (BROWSER_ISOLATION=single-tenant),
 * side by side, and each against the direct path: a raw Chromium the bench launches itself with
 * the same launcher, binary and sandbox, driven straight over its DevTools pipe. Measured: /start
 * with the pool empty (a cold start) and full, a whole client lifecycle, the CDP round trip, and
 * the memory of an idle instance. The two services run at once and samples alternate between
 * them, so that drift in the machine's load weighs on both alike; no sample starts before both
 * are idle (pools full, no instance being torn down). CHROME_PATH selects the binary, as for the
 * service. Then starts from saved profiles of 10 and 100 MB against starts without one (_profiles.ts).
 */
const COLD_RUNS = 24;
/** Starts whose whole CPU is counted (each waits for Chromium to settle). */
const CPU_RUNS = 8;
const WARM_RUNS = 20;
const LIFECYCLES = 20;
const ROUND_TRIPS = 1000;
const POOL = 2;

const MODES: readonly Mode[] = ['sandbox', 'single-tenant'];
const STARTS = ['plain', 'sandbox', 'sandbox and cgroups'] as const;
const TARGET = { warmP50: 50, lifecycleP50: 150, isolationPct: 15 };

type Samples = Record<Mode, number[]>;
const samples = (): Samples => ({ sandbox: [], 'single-tenant': [] });

/** One measure for both modes: p50/p90/p99 of each, and how it stands against a p50 target. */
function row(measure: string, s: Samples, target?: { p50: number; text: string }): Row {
  const met = (m: Mode) => (percentile(s[m], 0.5) < (target?.p50 ?? 0) ? 'yes' : 'NO');
  return {
    measure,
    runs: s.sandbox.length === s['single-tenant'].length ? s.sandbox.length : `${s.sandbox.length}/${s['single-tenant'].length}`,
    'isolated p50': percentile(s.sandbox, 0.5),
    p90: percentile(s.sandbox, 0.9),
    p99: percentile(s.sandbox, 0.99),
    'not isolated p50': percentile(s['single-tenant'], 0.5),
    'p90 ': percentile(s['single-tenant'], 0.9),
    'p99 ': percentile(s['single-tenant'], 0.99),
    target: target?.text ?? '',
    'met (isolated / not)': target ? `${met('sandbox')} / ${met('single-tenant')}` : '',
  };
}

type Svc = { mode: Mode; service: ServiceProcess; token: string; pool: number };

async function startServices(pool: number, allowPages: boolean): Promise<Record<Mode, Svc>> {
  const started = await Promise.allSettled(
    MODES.map(async (mode) => {
      const service = await startService({
        BROWSER_ISOLATION: mode,
        BROWSER_POOL_SIZE: String(pool),
        ...(allowPages ? { BROWSER_EGRESS_ALLOW: '127.0.0.1/32' } : {}),
      });
      try {
        return { mode, service, token: service.createKey({ maxInstances: 100 }).token, pool };
      } catch (err) {
        await service.stop();
        throw err;
      }
    }),
  );
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.service.stop() : null)));
    throw failed.reason;
  }
  const [sandbox, singleTenant] = started.map((r) => (r as PromiseFulfilledResult<Svc>).value) as [Svc, Svc];
  return { sandbox, 'single-tenant': singleTenant };
}

async function idle(s: Svc): Promise<boolean> {
  const health = (await (await fetch(`${s.service.url}/healthz`)).json()) as {
    browsers: { warm: number; live: number; prepared: number };
  };
  // Pool full, the next launch prepared, nothing live, and no folders beyond the pool's: every
  // ended instance is torn down.
  const { warm, live, prepared } = health.browsers;
  if (warm !== s.pool || prepared !== 1 || live !== 0 || profileDirs(s.service.dataDir).length !== s.pool) return false;
  return s.pool > 0 || (await chromiumProcesses(s.service.dataDir)).length === 0;
}

/** Wait until every service is idle. */
async function settle(services: Svc[]): Promise<void> {
  for (const s of services) {
    const ok = await eventually(
      () => idle(s),
      (v) => v,
      60_000,
    );
    if (!ok) throw new Error(`the ${s.mode} service did not settle within 60 s`);
  }
}

async function stopAll(services: Record<Mode, Svc>): Promise<void> {
  await Promise.all(MODES.map((m) => services[m].service.stop()));
}

/** open /start, GET /json/version, connect, page target + attach, navigate to a local page, close /start. */
async function lifecycle(s: Svc, pageUrl: string): Promise<number> {
  const t0 = performance.now();
  const started = await openStart(s.service.wsUrl, s.token);
  const cdp = await RawCdp.connect(await debuggerUrl(s.service.url, started.headers), started.headers);
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Page.enable', {}, sessionId);
  const loaded = new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { method?: string; sessionId?: string };
      if (m.method !== 'Page.loadEventFired' || m.sessionId !== sessionId) return;
      cdp.socket.off('message', onMessage);
      resolve();
    };
    cdp.socket.on('message', onMessage);
  });
  await cdp.send('Page.navigate', { url: pageUrl }, sessionId);
  await loaded;
  await cdp.close();
  started.socket.close();
  await started.closed;
  const elapsed = ms(t0);
  await closeStart(s.service.url, started);
  return elapsed;
}

/** The same work straight over a launched Chromium's pipe: page target + attach, navigate, close the page. */
async function directLifecycle(chromium: Chromium, pageUrl: string): Promise<number> {
  const t0 = performance.now();
  const { targetId } = await chromium.mux.call<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await chromium.mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  await chromium.mux.call('Page.enable', {}, sessionId);
  const loaded = nextEvent(chromium, sessionId, 'Page.loadEventFired');
  await chromium.mux.call('Page.navigate', { url: pageUrl }, sessionId);
  await loaded;
  await chromium.mux.call('Target.closeTarget', { targetId });
  return ms(t0);
}

type Evaluate = () => Promise<unknown>;

async function roundTrips(evaluate: Evaluate, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await evaluate();
    out.push(ms(t0));
  }
  return out;
}

async function main(): Promise<void> {
  const began = performance.now();
  const pages = await startPageServer();
  const direct = await DirectChromiums.create(['127.0.0.1/32']);
  try {
    await measure(began, pages.url, direct);
  } finally {
    await direct.close();
    await pages.close();
  }
}

async function measure(began: number, pageUrl: string, direct: DirectChromiums): Promise<void> {
  const loadAtStart = loadavg()[0]?.toFixed(2);
  const cold = samples();
  const launches = samples();
  const preparedStarts = samples();
  const startCpu = samples();
  const warm = samples();
  const cycles = samples();
  const directCycles = samples();
  const viaService = samples();
  const trueStarts = Object.fromEntries(STARTS.map((how) => [how, [] as number[]])) as Record<(typeof STARTS)[number], number[]>;
  const straight = samples();
  const memory: { measure: string; mb: number; processes: number }[] = [];
  let browserVersion = '';
  const directVersions = new Set<string>();

  // Cold: no pool, so /start launches; one instance per service kept afterwards for the round trip and memory.
  const coldServices = await startServices(0, false);
  const kept: { mode: Mode; started: Awaited<ReturnType<typeof openStart>>; cdp: RawCdp }[] = [];
  const raw: Partial<Record<Mode, Chromium>> = {};
  try {
    const all = MODES.map((m) => coldServices[m]);
    // A first start per service and binary is not counted: the launcher measures the window once per binary.
    for (const s of all) await closeStart(s.service.url, await openStart(s.service.wsUrl, s.token));
    for (const m of MODES) await (await direct.launch(m)).close();
    for (let i = 0; i < COLD_RUNS; i++) {
      for (const mode of MODES) {
        const s = coldServices[mode];
        await settle(all);
        const t0 = performance.now();
        const started = await openStart(s.service.wsUrl, s.token);
        cold[mode].push(ms(t0));
        await closeStart(s.service.url, started);
        await settle(all);
        const t1 = performance.now();
        const chromium = await direct.launch(mode);
        launches[mode].push(ms(t1));
        directVersions.add(chromium.version.Browser);
        await chromium.close();
        await settle(all);
        // As the service does: prepared while nobody waits, then started.
        const prepared = await direct.prepare(mode);
        await new Promise((r) => setTimeout(r, 300));
        const t2 = performance.now();
        const fromPrepared = await prepared.start();
        preparedStarts[mode].push(ms(t2));
        await fromPrepared.close();
      }
    }
    // The whole CPU of a start: every process of Chromium, once it has settled after its first answer.
    for (let i = 0; i < CPU_RUNS; i++) {
      for (const mode of MODES) {
        await settle(all);
        const chromium = await (await direct.prepare(mode)).start();
        await new Promise((r) => setTimeout(r, 1500));
        startCpu[mode].push(chromiumCpuMs(await directProcesses(chromium)));
        await chromium.close();
      }
    }
    console.error(`cold starts done at ${(ms(began) / 1000).toFixed(1)} s`);

    // Where isolation's share of a cold start goes: the sandbox's launcher alone, around a program that ends at once.
    for (const how of STARTS) await direct.startTrue(how); // not counted
    for (let i = 0; i < COLD_RUNS; i++) {
      for (const how of STARTS) {
        // As apart as two cold starts above: the kernel's cgroup lock is back to its resting state.
        await new Promise((r) => setTimeout(r, 300));
        trueStarts[how].push(await direct.startTrue(how));
      }
    }

    // Round trip: Runtime.evaluate on a page, through each service and straight over each raw Chromium's pipe.
    await settle(all);
    const paths: { mode: Mode; out: Samples; evaluate: Evaluate }[] = [];
    for (const mode of MODES) {
      const s = coldServices[mode];
      const started = await openStart(s.service.wsUrl, s.token);
      const version = (await (await fetch(`${s.service.url}/json/version`, { headers: started.headers })).json()) as {
        Browser: string;
        webSocketDebuggerUrl: string;
      };
      browserVersion ||= version.Browser;
      if (version.Browser !== browserVersion) browserVersion += ` / ${version.Browser}`;
      const cdp = await RawCdp.connect(version.webSocketDebuggerUrl, started.headers);
      kept.push({ mode, started, cdp });
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      paths.push({ mode, out: viaService, evaluate: () => cdp.send('Runtime.evaluate', { expression: '1+1' }, sessionId) });

      const chromium = await direct.launch(mode);
      raw[mode] = chromium;
      const page = await chromium.mux.call<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const session = await chromium.mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
      paths.push({ mode, out: straight, evaluate: () => chromium.mux.call('Runtime.evaluate', { expression: '1+1' }, session.sessionId) });
    }
    for (const p of paths) await roundTrips(p.evaluate, 200); // warm-up
    for (let batch = 0; batch < 10; batch++) {
      for (const p of paths) p.out[p.mode].push(...(await roundTrips(p.evaluate, ROUND_TRIPS / 10)));
    }

    // Memory: all four idle at once (each with one blank page besides its first), so that the pages
    // of the binary they share are split alike in every figure.
    await new Promise((r) => setTimeout(r, 2000));
    for (const mode of MODES) {
      // By uid range (sandbox) or command line (single-tenant), which finds only the first process: its group is added.
      const pids = withProcessGroups(await chromiumProcesses(coldServices[mode].service.dataDir));
      memory.push({
        measure: `service instance, ${mode === 'sandbox' ? 'isolated' : 'not isolated'}`,
        mb: await pssMb(pids),
        processes: pids.length,
      });
    }
    for (const mode of MODES) {
      const pids = await directProcesses(raw[mode] as Chromium);
      memory.push({
        measure: `raw Chromium, ${mode === 'sandbox' ? 'in the sandbox' : 'no sandbox'}`,
        mb: await pssMb(pids),
        processes: pids.length,
      });
    }
  } finally {
    await Promise.all(
      kept.map(async (k) => {
        await k.cdp.close();
        await closeStart(coldServices[k.mode].service.url, k.started).catch(() => {});
      }),
    );
    for (const c of Object.values(raw)) await c.close();
    await stopAll(coldServices);
  }
  console.error(`round trips and memory done at ${(ms(began) / 1000).toFixed(1)} s`);

  // Warm: a full pool; /start alone, then the whole lifecycle. Each sample starts with both pools full.
  const warmServices = await startServices(POOL, true);
  const launched: Chromium[] = [];
  try {
    const all = MODES.map((m) => warmServices[m]);
    await settle(all);
    for (const s of all) await lifecycle(s, pageUrl); // not counted: first connection, first page
    for (let i = 0; i < WARM_RUNS; i++) {
      for (const mode of MODES) {
        const s = warmServices[mode];
        await settle(all);
        const t0 = performance.now();
        const started = await openStart(s.service.wsUrl, s.token);
        warm[mode].push(ms(t0));
        await closeStart(s.service.url, started);
      }
    }
    for (let i = 0; i < LIFECYCLES; i++) {
      for (const mode of MODES) {
        await settle(all);
        cycles[mode].push(await lifecycle(warmServices[mode], pageUrl));
      }
    }
    await settle(all);
    const chromiums = {} as Record<Mode, Chromium>;
    for (const mode of MODES) {
      chromiums[mode] = await direct.launch(mode);
      launched.push(chromiums[mode]);
      await directLifecycle(chromiums[mode], pageUrl); // not counted
    }
    for (let i = 0; i < LIFECYCLES; i++) {
      for (const mode of MODES) directCycles[mode].push(await directLifecycle(chromiums[mode], pageUrl));
    }
  } finally {
    for (const c of launched) await c.close();
    await stopAll(warmServices);
  }
  console.error(`warm starts and lifecycles done at ${(ms(began) / 1000).toFixed(1)} s`);

  const exe = direct.executable;
  const sameBinary = directVersions.size === 1 && directVersions.has(browserVersion) ? '' : ` (raw: ${[...directVersions].join(', ')})`;
  printTable(
    `Browser service, isolated (sandbox) and not (single-tenant), against the direct path; ms\nBinary: ${browserVersion}${sameBinary}, ${exe.source === 'CHROME_PATH' ? 'CHROME_PATH' : 'npm headless shell'} ${exe.path}`,
    [
      row('cold /start to id (pool empty, next launch prepared)', cold),
      row('  direct: a prepared launch started, until its pipe answers', preparedStarts),
      row('  direct: nothing prepared, Chromium.launch until its pipe answers', launches),
      row("  direct: CPU of a start, all of Chromium's processes, 1.5 s after", startCpu),
      row(`warm /start to id (pool of ${POOL}, full)`, warm, { p50: TARGET.warmP50, text: `p50 < ${TARGET.warmP50} ms` }),
      row('lifecycle: /start, /json/version, connect, page, navigate, release', cycles, {
        p50: TARGET.lifecycleP50,
        text: `p50 < ${TARGET.lifecycleP50} ms`,
      }),
      row('  direct: page, attach, navigate, close page over the pipe', directCycles),
      row('Runtime.evaluate 1+1 through the service', viaService),
      row('  direct: Runtime.evaluate 1+1 over the pipe', straight),
    ],
  );

  const p50 = (s: number[]) => percentile(s, 0.5);
  const isolationCold = (p50(cold.sandbox) / p50(cold['single-tenant']) - 1) * 100;
  const isolationLaunch = (p50(launches.sandbox) / p50(launches['single-tenant']) - 1) * 100;
  const isolationPrepared = (p50(preparedStarts.sandbox) / p50(preparedStarts['single-tenant']) - 1) * 100;
  printTable('Overheads (from p50s) and memory', [
    {
      measure: 'isolation adds to a cold /start (%)',
      value: isolationCold,
      target: `<= ${TARGET.isolationPct} %`,
      met: isolationCold <= TARGET.isolationPct ? 'yes' : 'NO',
    },
    { measure: 'isolation adds to the start of a raw prepared launch (%)', value: isolationPrepared, target: '', met: '' },
    { measure: 'isolation adds to a raw Chromium launch, nothing prepared (%)', value: isolationLaunch, target: '', met: '' },
    ...MODES.map((m) => ({
      measure: `cold /start p50 less direct prepared start p50, ${m === 'sandbox' ? 'isolated' : 'not isolated'} (ms)`,
      value: p50(cold[m]) - p50(preparedStarts[m]),
      target: '',
      met: '',
    })),
    ...MODES.map((m) => ({
      measure: `round trip service / pipe, ${m === 'sandbox' ? 'isolated' : 'not isolated'} (ratio)`,
      value: p50(viaService[m]) / p50(straight[m]),
      target: '',
      met: '',
    })),
    ...memory.map((m) => ({ measure: `PSS of one idle ${m.measure} (MB, ${m.processes} processes)`, value: m.mb, target: '', met: '' })),
  ]);
  const chain = p50(trueStarts.sandbox) - p50(trueStarts.plain);
  const cgroupJoin = p50(trueStarts['sandbox and cgroups']) - p50(trueStarts.sandbox);
  const launchGap = p50(launches.sandbox) - p50(launches['single-tenant']);
  printTable("Where isolation's time in a cold start goes, and what preparing ahead takes off it (p50s, ms)", [
    { measure: 'a program that ends at once (/usr/bin/true), started plainly', value: p50(trueStarts.plain) },
    { measure: "  through the sandbox's launcher: wrapper, setpriv, bwrap, relay", value: p50(trueStarts.sandbox) },
    { measure: "  and joining the instance's cgroups", value: p50(trueStarts['sandbox and cgroups']) },
    { measure: 'isolation adds to a raw Chromium launch, nothing prepared', value: launchGap },
    { measure: "  of which the sandbox's launcher (made ahead when prepared)", value: chain },
    { measure: "  of which joining cgroups, the kernel's cgroup lock (made ahead when prepared)", value: cgroupJoin },
    { measure: "  the rest: Chromium's own sandbox and zygotes, its own uid, the relay", value: launchGap - chain - cgroupJoin },
    {
      measure: 'isolation adds to the start of a raw prepared launch',
      value: p50(preparedStarts.sandbox) - p50(preparedStarts['single-tenant']),
    },
  ]);
  console.log(
    `\nisolation adds ${isolationCold.toFixed(1)} % to a cold start: /start p50 ${p50(cold.sandbox).toFixed(1)} ms isolated against ${p50(cold['single-tenant']).toFixed(1)} ms not isolated (target <= ${TARGET.isolationPct} %: ${isolationCold <= TARGET.isolationPct ? 'met' : 'MISSED'})`,
  );
  console.log(
    `(PSS measured with the four idle at once, so the binary's shared pages are split four ways; whole run ${(ms(began) / 1000).toFixed(0)} s; load average ${loadAtStart} at start, ${loadavg()[0]?.toFixed(2)} at end, ${cpus().length} cores)`,
  );
}

await main();
// Starts from saved profiles (decision 0106), on services of their own.
await measureProfiles();
process.exit(0);
