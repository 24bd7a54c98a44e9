import pino from 'pino';
import { Chromium } from './lib/browser/chromium.ts';
import { resolveChromium } from './lib/browser/executable.ts';
import { probeIsolation } from './lib/browser/sandbox/probe.ts';
import { processesOfUids } from './lib/browser/sandbox/uids.ts';
import { EgressProxy } from './lib/browser/egress/proxy.ts';
import { EgressPolicy } from './lib/browser/egress/policy.ts';
console.log((await processesOfUids(1_000_000_000, 1_100_000_000)).slice(0,5));
const { isolation } = await probeIsolation({ setting: 'sandbox', uidBase: 1_000_000_000, uidCount: 4, tag: 'dbg', limits: { memoryBytes: 2e9, pids: 2048 } });
const egress = new EgressProxy(new EgressPolicy([]), pino());
await egress.listen();
const executable = await resolveChromium(process.env.CP);
try {
  const b = await Chromium.launch({ executable, instancesDir: '/tmp/exp/inst', isolation: isolation!, egress, timeoutMs: 10000 });
  console.log(b.version, b.uid);
  await b.close();
} catch (e) { console.log('ERR', e); }
await egress.close();
