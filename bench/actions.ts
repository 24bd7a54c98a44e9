import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { resolveChromium } from '#service/browser/executable.ts';
import { readPageExpression } from '#service/actions/extract.ts';
import { startService, type ServiceProcess } from '../tests/helpers/service.ts';
import { ms, percentile, printTable, type Row } from './_stats.ts';

/**
 * `npm run bench -- actions`: POST /v0/fetch of a local article through the service, against the
 * direct path: Playwright on a local Chromium already started, doing the same in a fresh context
 * (open the page, wait for load, read it with the same Readability and Turndown). Samples alternate
 * between the two so that the machine's drift weighs on both. Also the first call after the service
 * starts (its pool filled at start), and one with no pool at all (a cold start inside the call).
 * Targets (#26): p50 at most 1.3× the direct path; the first call after start under 1 s.
 */
const RUNS = 40;
const COLD_RUNS = 5;

const ARTICLE = `<!doctype html><html lang="en"><head><title>Descaling the kettle</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article><h1>Descaling the kettle</h1>
${'<p>Limescale builds up in every kettle that boils hard water; citric acid removes it in fifteen minutes, and a rinse leaves no taste behind.</p>'.repeat(30)}
</article></main><footer>Footer</footer></body></html>`;

async function pageServer(): Promise<{ url: string; close(): void }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ARTICLE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/article`, close: () => server.close() };
}

async function viaService(service: ServiceProcess, token: string, url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${service.url}/v0/fetch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  const answer = (await res.json()) as { content?: string };
  if (res.status !== 200 || !answer.content?.includes('citric acid'))
    throw new Error(`fetch answered ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
  return ms(t);
}

const page = await pageServer();
const executable = await resolveChromium(process.env.CHROME_PATH);
const env = { BROWSER_EGRESS_ALLOW: '127.0.0.1/32', ACTIONS_RATE_PER_MINUTE: '100000' };
const rows: Row[] = [];

// The first call after a start, pool filled at start (the default) and with no pool.
const firstCalls: Record<string, number[]> = { 'first call after start (pool 2)': [], 'every call cold (pool 0)': [] };
for (let i = 0; i < COLD_RUNS; i++) {
  for (const [label, pool] of [
    ['first call after start (pool 2)', '2'],
    ['every call cold (pool 0)', '0'],
  ] as const) {
    const service = await startService({ ...env, BROWSER_POOL_SIZE: pool });
    try {
      const token = service.createKey({ maxInstances: 10 }).token;
      firstCalls[label]?.push(await viaService(service, token, page.url));
    } finally {
      await service.stop();
    }
  }
}

const service = await startService({ ...env, BROWSER_POOL_SIZE: '2' });
const browser = await chromium.launch({ executablePath: executable.path, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
try {
  const token = service.createKey({ maxInstances: 10 }).token;
  const expression = readPageExpression('markdown');
  const direct = async () => {
    const t = performance.now();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const tab = await context.newPage();
    await tab.goto(page.url, { waitUntil: 'load' });
    const read = (await tab.evaluate(expression)) as { content: string };
    await context.close();
    if (!read.content.includes('citric acid')) throw new Error('direct read failed');
    return ms(t);
  };
  const samples = { service: [] as number[], direct: [] as number[] };
  await viaService(service, token, page.url); // warm both paths once
  await direct();
  for (let i = 0; i < RUNS; i++) {
    samples.service.push(await viaService(service, token, page.url));
    samples.direct.push(await direct());
  }
  const p50 = { service: percentile(samples.service, 0.5), direct: percentile(samples.direct, 0.5) };
  rows.push(
    {
      measure: 'fetch, warm pool (service)',
      runs: RUNS,
      p50: p50.service,
      p99: percentile(samples.service, 0.99),
      target: '≤ 1.3× direct p50',
      met: p50.service <= 1.3 * p50.direct ? 'yes' : 'NO',
    },
    {
      measure: 'fetch, Playwright on a started Chromium (direct)',
      runs: RUNS,
      p50: p50.direct,
      p99: percentile(samples.direct, 0.99),
      target: '',
      met: '',
    },
    {
      measure: 'ratio of p50s',
      runs: '',
      p50: p50.service / p50.direct,
      p99: percentile(samples.service, 0.99) / percentile(samples.direct, 0.99),
      target: '',
      met: '',
    },
  );
  for (const [label, s] of Object.entries(firstCalls)) {
    const cold = label.startsWith('first');
    rows.push({
      measure: label,
      runs: s.length,
      p50: percentile(s, 0.5),
      p99: percentile(s, 0.99),
      target: cold ? '< 1000 ms' : '',
      met: cold ? (percentile(s, 0.99) < 1000 ? 'yes' : 'NO') : '',
    });
  }
  printTable(`Page actions (ms; ${executable.path})`, rows);
} finally {
  await browser.close();
  await service.stop();
  page.close();
}
