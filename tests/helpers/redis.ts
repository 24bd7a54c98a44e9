import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/**
 * A private redis-server for one test run: on a loopback port of its own, nothing written to disk,
 * stopped (and its folder removed) by `stop()`. Debian's `redis-server` package provides it; `.ci/run`
 * installs it when absent.
 */
export type TestRedis = { url: string; port: number; process: ChildProcess; stop(): Promise<void> };

export function redisServerPath(): string | null {
  if (process.env.REDIS_SERVER) return process.env.REDIS_SERVER;
  const which = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

/** Start a server; throws with its own words when it cannot. */
export async function startRedis(): Promise<TestRedis> {
  const bin = redisServerPath();
  if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server), or set REDIS_SERVER to it');
  const dir = mkdtempSync(join(tmpdir(), 'periscope-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const deadline = Date.now() + 15_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start on port ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  let stopping: Promise<void> | null = null;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: child,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }).then(() => rmSync(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}

/**
 * A private server for one test file, or the reason to skip it: tests that need Redis are skipped,
 * saying why, where redis-server is not installed, and fail in CI (CI=true), where it must be.
 */
export async function redisForTests(): Promise<{ redis: TestRedis; skip: false } | { redis: null; skip: string }> {
  const skip = redisSkip();
  return skip ? { redis: null, skip } : { redis: await startRedis(), skip: false };
}

/**
 * For `describe(name, { skip: redisSkip() }, …)`: false when redis-server is here; otherwise the
 * reason to skip, except in CI (CI=true), where a missing server fails the test file instead.
 */
export function redisSkip(): string | false {
  if (redisServerPath()) return false;
  const reason = 'redis-server is not installed (apt-get install redis-server), or set REDIS_SERVER to it';
  if (/^(1|true|yes)$/i.test(process.env.CI ?? '')) throw new Error(`CI=true and ${reason}`);
  return reason;
}
