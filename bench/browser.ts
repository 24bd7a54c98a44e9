import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Chromium } from '../lib/browser/chromium.ts';
import { EgressPolicy } from '../lib/browser/egress/policy.ts';
import { EgressProxy } from '../lib/browser/egress/proxy.ts';
import { resolveChromium } from '../lib/browser/executable.ts';
import { closeStart, chromiumProcesses, debuggerUrl, eventually, openStart } from '../tests/helpers/browser.ts';
import { RawCdp } from '../tests/helpers/cdp.ts';
import { startPageServer } from '../tests/helpers/pages.ts';
import { startService } from '../tests/helpers/service.ts';
import { ms, percentile, printTable, type Row } from './_stats.ts';

/**
 * The browser service against the direct path: /start latency with the pool warm and empty, a whole
 * lifecycle, the CDP round trip through the proxy against straight to Chromium, and the memory of
 * one idle instance.
 */
const WARM_RUNS = 30;
const COLD_RUNS = 12;
const LIFECYCLES = 20;
const ROUND_TRIPS = 2000;

const row = (name: string, samples: number[], target?: string): Row => ({
  measure: name,
  runs: samples.length,
  'p50 ms': percentile(samples, 0.5),
  'p99 ms': percentile(samples, 0.99),
  target: target ?? '',
});

async function warmth(url: string): Promise<number> {
  return ((await (await fetch(`${url}/healthz`)).json()) as { browsers: { warm: number } }).browsers.warm;
}

async function startLatency(poolSize: number, runs: number): Promise<number[]> {
  const service = await startService({ BROWSER_POOL_SIZE: String(poolSize) });
  const { token } = service.createKey({ maxInstances: 100 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      if (poolSize > 0) await eventually(() => warmth(service.url), (n) => n >= 1, 30_000);
      const t0 = performance.now();
      const started = await openStart(service.wsUrl, token);
      samples.push(ms(t0));
      await closeStart(service.url, started);
    }
  } finally {
    await service.stop();
  }
  return samples;
}

async function lifecycles(pageUrl: string): Promise<number[]> {
  const service = await startService({ BROWSER_POOL_SIZE: '2', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
  const { token } = service.createKey({ maxInstances: 100 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < LIFECYCLES; i++) {
      await eventually(() => warmth(service.url), (n) => n >= 1, 30_000);
      const t0 = performance.now();
      const started = await openStart(service.wsUrl, token);
      const cdp = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      await cdp.send('Page.enable', {}, sessionId);
      const loaded = new Promise<void>((resolve) => {
        const check = () => (cdp.events.some((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId) ? resolve() : setTimeout(check, 1));
        check();
      });
      await cdp.send('Page.navigate', { url: pageUrl }, sessionId);
      await loaded;
      await cdp.close();
      started.socket.close();
      await started.closed;
      samples.push(ms(t0));
      await closeStart(service.url, started);
    }
  } finally {
    await service.stop();
  }
  return samples;
}

async function roundTrips(cdp: RawCdp, sessionId: string | undefined, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await cdp.send('Runtime.evaluate', { expression: '1+1' }, sessionId);
    samples.push(ms(t0));
  }
  return samples;
}

async function pageSession(cdp: RawCdp): Promise<string> {
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  return (await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true })).sessionId;
}

/** Every process in the process group each of `leaders` heads (Chromium starts as a group leader). */
async function processGroups(leaders: number[]): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (leaders.includes(pgrp)) members.push(Number(entry));
    } catch {
      // exited
    }
  }
  return members;
}

/** Proportional set size of a Chromium's whole process tree, in MB. */
async function pss(leaders: number[]): Promise<number> {
  let kb = 0;
  for (const pid of await processGroups(leaders)) {
    try {
      const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
      kb += Number(/^Pss:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

async function main(): Promise<void> {
  const pages = await startPageServer();
  const warm = await startLatency(4, WARM_RUNS);
  const cold = await startLatency(0, COLD_RUNS);
  const cycles = await lifecycles(pages.url);

  // Round trip: one service instance through the proxy, one raw Chromium straight, same binary and flags.
  const service = await startService({ BROWSER_POOL_SIZE: '0' });
  const { token } = service.createKey();
  const started = await openStart(service.wsUrl, token);
  const proxied = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
  const egress = new EgressProxy(new EgressPolicy(), pino({ level: 'silent' }));
  await egress.listen();
  const executable = await resolveChromium(process.env.CHROME_PATH);
  const raw = await Chromium.launch({ executable: executable.path, profilesDir: join(service.dataDir, 'direct'), proxyUrl: egress.url, timeoutMs: 30_000 });
  const direct = await RawCdp.connect(raw.devtoolsUrl.href, {});
  const [proxiedSession, directSession] = [await pageSession(proxied), await pageSession(direct)];
  await roundTrips(proxied, proxiedSession, 200);
  await roundTrips(direct, directSession, 200);
  const viaProxy: number[] = [];
  const straight: number[] = [];
  for (let batch = 0; batch < 10; batch++) {
    viaProxy.push(...(await roundTrips(proxied, proxiedSession, ROUND_TRIPS / 10)));
    straight.push(...(await roundTrips(direct, directSession, ROUND_TRIPS / 10)));
  }
  await new Promise((r) => setTimeout(r, 2000)); // let the idle instance settle before measuring memory
  // With no pool, the service's only Chromium processes are the instance's; the group leaders are its browsers.
  const instanceMb = await pss(await chromiumProcesses(service.dataDir));
  const directMb = await pss([raw.pid]);

  printTable('Browser service (Chromium ' + raw.version.Browser + ', ' + executable.source + ')', [
    row('/start to id, pool warm', warm, 'p50 < 50 ms'),
    row('/start to id, pool empty', cold),
    row('lifecycle: start, connect, open local page, release', cycles, 'p50 < 300 ms'),
    row('Runtime.evaluate 1+1 through the proxy', viaProxy),
    row('Runtime.evaluate 1+1 straight to Chromium', straight),
  ]);
  const ratio50 = percentile(viaProxy, 0.5) / percentile(straight, 0.5);
  const ratio99 = percentile(viaProxy, 0.99) / percentile(straight, 0.99);
  printTable('Proxy overhead and memory', [
    { measure: 'round trip ratio proxy/direct, p50', value: ratio50, target: '<= 1.2' },
    { measure: 'round trip ratio proxy/direct, p99', value: ratio99, target: '' },
    { measure: 'PSS of one idle service instance (MB, one blank page)', value: instanceMb, target: '' },
    { measure: 'PSS of one raw Chromium (MB, one blank page)', value: directMb, target: '' },
  ]);

  await Promise.all([proxied.close(), direct.close()]);
  await raw.close();
  await egress.close();
  await closeStart(service.url, started);
  await service.stop();
  await pages.close();
}

await main();
