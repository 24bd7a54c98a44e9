import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/**
 * A private PostgreSQL for one test run: a new cluster in a temporary folder, on a loopback port
 * of its own and a socket in that folder, trusting local connections, stopped and removed by
 * `stop()`. PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres`
 * user (Debian's package creates it) and its programs run under `runuser`.
 */
export type TestPostgres = { url: string; dir: string; stop(): void };

/** Where this machine's PostgreSQL programs are: $PG_BIN, Debian's newest version, or $PATH. */
export function postgresBin(): string | null {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'pg_ctl')) ? process.env.PG_BIN : null;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found ? join(found, '..') : null;
}

/** Start a cluster; throws with PostgreSQL's own words when it cannot. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set PG_BIN to its bin folder');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'periscope-pg-'));
  const data = join(dir, 'data');
  const run = (program: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(cmd as string, argv as string[], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  };
  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const port = await freePort();
    // Durability is not what a test run needs; a few hundred connections are (test files run in parallel).
    const options = [`-k ${dir}`, `-p ${port}`, '-h 127.0.0.1', '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
    options.push('-c max_connections=400', '-c shared_buffers=64MB');
    run('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options.join(' ')]);
    let stopped = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      dir,
      stop() {
        if (stopped) return;
        stopped = true;
        try {
          run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '30']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000) : '';
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL from ${bin}: ${(err as Error).message}\n${stderr}${log}`, { cause: err });
  }
}
