import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers/service.ts';

/**
 * `npm run test:clients` (Python part): the Python client's tests, pytest against the real service.
 * Python's test needs come from Debian (`apt-get install python3-websockets python3-pytest
 * python3-venv python3-pip python3-setuptools`, as .ci/run does), so the first interpreter that has
 * them runs the tests: Debian's own first, then whatever `python3` is on PATH. In CI (CI=true) an
 * interpreter without them fails the run; elsewhere the run is skipped, saying what to install.
 */
const CANDIDATES = ['/usr/bin/python3', 'python3'];
const NEEDS = 'import websockets, pytest, venv, setuptools, pip';

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const python = CANDIDATES.find((p) => spawnSync(p, ['-c', NEEDS], { stdio: 'ignore' }).status === 0);
if (!python) {
  const why = `no Python 3 with websockets, pytest, venv, setuptools and pip (tried ${CANDIDATES.join(', ')}); install them with:
  apt-get install python3-websockets python3-pytest python3-venv python3-pip python3-setuptools`;
  if (ci) {
    console.error(`test:clients: CI=true and ${why}`);
    process.exit(1);
  }
  console.log(`test:clients: Python client skipped, ${why}`);
  process.exit(0);
}
// The service the tests start runs on this Node (24), whatever `node` is first on PATH.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
const r = spawnSync(
  python,
  ['-m', 'pytest', join(ROOT, 'clients/python/tests'), '-q', '-p', 'no:cacheprovider', ...process.argv.slice(2)],
  {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
