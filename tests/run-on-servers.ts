import { spawn } from 'node:child_process';
import { CLUSTER_SECRET } from './helpers/cluster.ts';
import { startPostgres, type TestPostgres } from './helpers/postgres.ts';
import { startRedis, type TestRedis } from './helpers/redis.ts';

/**
 * `npm run test:servers`: the service's integration tests again, with every service they start on
 * real servers instead of the embedded stores: a private PostgreSQL (DATABASE_URL: keys and browser
 * history) and a private Redis (REDIS_URL: the service is then a node of a cluster of one: its
 * limits, browser registry and search limit in Redis). The tests themselves are unchanged; each
 * service inherits this environment. In CI (CI=true) a server that cannot start fails the run;
 * elsewhere the run is skipped, saying why.
 */
const FILES = [
  'tests/integration/browser-flow.test.ts',
  'tests/integration/browser-lifecycle.test.ts',
  'tests/integration/browser-errors.test.ts',
  'tests/integration/browser-files.test.ts',
  'tests/integration/browser-list.test.ts',
  'tests/integration/browser-recording.test.ts',
  'tests/integration/search-api.test.ts',
];

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
let postgres: TestPostgres | null = null;
let redis: TestRedis | null = null;
try {
  postgres = await startPostgres();
  redis = await startRedis();
} catch (err) {
  postgres?.stop();
  const reason = (err as Error).message;
  if (ci) {
    console.error(`test:servers: CI=true and a server did not start, failing:\n${reason}`);
    process.exit(1);
  }
  console.log(`test:servers: skipped, a server did not start (set CI=true to make this an error):\n${reason}`);
  process.exit(0);
}

const stop = async () => {
  postgres?.stop();
  await redis?.stop();
};
console.log(`test:servers: PostgreSQL at ${postgres.url}, Redis at ${redis.url}`);
const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...process.argv.slice(2), ...FILES], {
  stdio: 'inherit',
  env: { ...process.env, DATABASE_URL: postgres.url, REDIS_URL: redis.url, CLUSTER_SECRET },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  void stop().finally(() => process.exit(code ?? (signal ? 1 : 0)));
});
