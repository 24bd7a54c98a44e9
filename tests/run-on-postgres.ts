import { spawn } from 'node:child_process';
import { TEST_DATABASE_ENV } from './helpers/postgres-data.ts';
import { startPostgres, type TestPostgres } from './helpers/postgres.ts';

/**
 * `npm run test:postgres`: the portal's and the service's data and domain tests again, on PostgreSQL
 * (decisions 0090, 0093).
 * Starts a private server for the run (tests/helpers/postgres.ts), gives its address to every test
 * file in PORTAL_TEST_DATABASE_URL (memoryData() then opens PostgreSQL), and stops it afterwards.
 * In CI (CI=true) a server that cannot start fails the run; elsewhere the run is skipped, saying why.
 */
const FILES = [
  // the data layer itself, and what only PostgreSQL has (locks, LISTEN/NOTIFY, its migrations)
  'lib/portal/data/*.test.ts',
  // every domain test that stores through PortalData
  'lib/portal/accounts/*.test.ts',
  'lib/portal/teams/*.test.ts',
  'lib/portal/keys/*.test.ts',
  'lib/portal/live/browser-events.test.ts',
  'lib/portal/live/key-browsers.test.ts',
  'lib/portal/inspector/recordings.test.ts',
  'lib/portal/search/search.test.ts',
  'tests/unit/portal-users-cli.test.ts',
  // the service's own data (decision 0093): its store, what only PostgreSQL has, the domain tests
  // that store keys or history, the `keys` command, and both owners in one database
  'lib/service/database.test.ts',
  'lib/service/keys/*.test.ts',
  'lib/service/browser/history.test.ts',
  'lib/service/browser/recording/recordings.test.ts',
  'tests/unit/keys-cli.test.ts',
  'tests/unit/one-database.test.ts',
  // a DATA_DIR's SQLite data moved into PostgreSQL (npm run move-to-postgres)
  'tests/unit/move-to-postgres.test.ts',
];

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
let server: TestPostgres;
try {
  server = await startPostgres();
} catch (err) {
  const reason = (err as Error).message;
  if (ci) {
    console.error(`test:postgres: CI=true and PostgreSQL did not start, failing:\n${reason}`);
    process.exit(1);
  }
  console.log(`test:postgres: skipped, PostgreSQL did not start (set CI=true to make this an error):\n${reason}`);
  process.exit(0);
}

const stop = () => {
  try {
    server.stop();
  } catch (err) {
    console.error(`test:postgres: stopping the server: ${(err as Error).message}`);
  }
};
console.log(`test:postgres: PostgreSQL at ${server.url} (${server.dir})`);
// `-- FILE…` runs those files only (the server still started): node tests/run-on-postgres.ts -- tests/unit/x.test.ts
const only = process.argv.indexOf('--');
const options = only === -1 ? process.argv.slice(2) : process.argv.slice(2, only);
const files = only === -1 ? FILES : process.argv.slice(only + 1);
const child = spawn(process.execPath, ['--test', ...options, ...files], {
  stdio: 'inherit',
  env: { ...process.env, [TEST_DATABASE_ENV]: server.url },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  stop();
  process.exit(code ?? (signal ? 1 : 0));
});
