import { closeStart, openStart } from '../tests/helpers/browser.ts';
import { RawCdp } from '../tests/helpers/cdp.ts';
import { startServiceCluster } from '../tests/helpers/cluster.ts';
import { percentile, printTable } from './_stats.ts';

/**
 * `npm run bench -- cluster`: the CDP round trip (Runtime.evaluate 1+1 on a page) to a browser
 * through the node that runs it and through another node, which splices the DevTools socket to the
 * first (decision 0091). Target: through another node ≤ 1.3× through the owning node. Two real
 * service nodes on a private Redis; the paths alternate in batches so that load on the machine
 * falls on both alike.
 */
const ROUND_TRIPS = 4000;

const cluster = await startServiceCluster(2, () => ({ BROWSER_POOL_SIZE: '0' }));
if (typeof cluster === 'string') {
  console.log(`skipped: ${cluster}`);
  process.exit(0);
}
try {
  const [owner, other] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
  const { token } = owner.createKey({ name: 'bench' });
  const started = await openStart(owner.wsUrl, token);
  const { webSocketDebuggerUrl } = (await (await fetch(`${owner.url}/json/version`, { headers: started.headers })).json()) as {
    webSocketDebuggerUrl: string;
  };
  const path = new URL(webSocketDebuggerUrl).pathname;
  const paths = await Promise.all(
    [
      ['through the owning node', owner.wsUrl],
      ['through another node', other.wsUrl],
    ].map(async ([name, base]) => {
      const cdp = await RawCdp.connect(`${base}${path}`, started.headers);
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      return { name: name as string, cdp, sessionId, samples: [] as number[] };
    }),
  );
  const batch = async (p: (typeof paths)[0], n: number, keep: boolean) => {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await p.cdp.send('Runtime.evaluate', { expression: '1+1' }, p.sessionId);
      if (keep) p.samples.push((performance.now() - t) * 1000);
    }
  };
  for (const p of paths) await batch(p, 300, false);
  for (let round = 0; round < 20; round++) for (const p of paths) await batch(p, ROUND_TRIPS / 20, true);
  const [own, foreign] = paths as [(typeof paths)[0], (typeof paths)[0]];
  printTable(
    `CDP round trip, Runtime.evaluate 1+1 (µs, ${ROUND_TRIPS} each, alternating batches)`,
    paths.map((p) => ({
      path: p.name,
      p50: percentile(p.samples, 0.5),
      p90: percentile(p.samples, 0.9),
      p99: percentile(p.samples, 0.99),
    })),
  );
  const ratio = percentile(foreign.samples, 0.5) / percentile(own.samples, 0.5);
  printTable('Another node against the owning node', [
    { measure: 'p50 ratio', value: ratio, target: '≤ 1.3', met: ratio <= 1.3 ? 'yes' : 'no' },
    { measure: 'p99 ratio', value: percentile(foreign.samples, 0.99) / percentile(own.samples, 0.99), target: '', met: '' },
  ]);
  for (const p of paths) await p.cdp.close();
  await closeStart(owner.url, started);
} finally {
  await cluster.stop();
}
