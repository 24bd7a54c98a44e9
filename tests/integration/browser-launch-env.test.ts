import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * Issue 29, item 6: a browser launch must run none of the operator's shell start-up files. Debian's
 * bash, started with a socket as its standard input (as Node's pipes are), reads the user's
 * `~/.bashrc`, and any non-interactive bash reads `$BASH_ENV`. The service runs here in a mount
 * namespace of its own where root's home (in /etc/passwd and $HOME) is a temporary folder whose
 * `.bashrc` leaves a mark, with BASH_ENV naming a file that leaves another.
 */
const root = process.getuid?.() === 0;
const unshare = spawnSync('sh', ['-c', 'command -v unshare']).status === 0;

describe('the launch environment', { skip: root && unshare ? false : 'needs root and unshare (a mount namespace)' }, () => {
  const home = mkdtempSync(join(tmpdir(), 'periscope-home-'));
  const marks = { bashrc: join(home, 'bashrc-ran'), bashEnv: join(home, 'bash-env-ran') };
  const passwd = join(home, 'passwd');
  const env = { HOME: home, BASH_ENV: join(home, 'env.sh') };
  // The service under `unshare`, with this passwd bound over the host's, in its own mount view only.
  const prefix = [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    'mount --bind "$0" /etc/passwd && exec "$@"',
    passwd,
  ];
  let service: ServiceProcess | undefined;

  before(() => {
    writeFileSync(join(home, '.bashrc'), `echo "$$" >> ${marks.bashrc}\n`);
    writeFileSync(env.BASH_ENV, `echo "$$" >> ${marks.bashEnv}\n`);
    const lines = readFileSync('/etc/passwd', 'utf8').split('\n');
    writeFileSync(passwd, lines.map((l) => (l.startsWith('root:') ? l.split(':').toSpliced(5, 1, home).join(':') : l)).join('\n'));
  });
  after(async () => {
    await service?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('shows first that a bash started as the launcher was would run either file', () => {
    // The leak this test looks for, in the same mount view and environment: with a socket for its
    // standard input bash reads the .bashrc (and then not BASH_ENV); with none, it reads BASH_ENV.
    const bash = (stdin: string) =>
      `require('node:child_process').spawn('bash', ['-c', 'true'], { stdio: ['${stdin}', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', BASH_ENV: process.env.BASH_ENV } }).on('exit', (c) => process.exit(c))`;
    const [file, ...args] = prefix;
    for (const stdin of ['pipe', 'ignore']) {
      const r = spawnSync(file as string, [...args, process.execPath, '-e', bash(stdin)], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.ok(existsSync(marks.bashrc), 'the .bashrc of the passwd home ran');
    assert.ok(existsSync(marks.bashEnv), 'BASH_ENV ran');
    rmSync(marks.bashrc);
    rmSync(marks.bashEnv);
  });

  it('runs neither the .bashrc nor BASH_ENV when it launches browsers', async () => {
    service = await startService({ ...env, BROWSER_POOL_SIZE: '1' }, { prefix });
    // The warm pool's browser started, and the next launch after it is prepared: two launches.
    const health = await eventually(
      async () => (await (await fetch(`${service!.url}/healthz`)).json()) as { browsers: { warm: number; prepared: number } },
      (h) => h.browsers.warm === 1 && h.browsers.prepared === 1,
      60_000,
    );
    assert.deepEqual([health.browsers.warm, health.browsers.prepared], [1, 1], 'a browser launched and another was prepared');
    assert.equal(existsSync(marks.bashrc), false, 'the .bashrc never ran');
    assert.equal(existsSync(marks.bashEnv), false, 'BASH_ENV never ran');
  });
});
