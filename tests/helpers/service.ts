import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeStaleInstanceFolders } from '#service/browser/instance-folders.ts';
import { killUids } from '#service/browser/sandbox/uids.ts';
import { defaultInstancesDir, defaultUidBase } from '#service/config.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export type ServiceProcess = {
  url: string;
  wsUrl: string;
  dataDir: string;
  child: ChildProcess;
  /** Every log line the service printed, parsed. */
  logs: Record<string, unknown>[];
  /** Create an API key through the operator CLI; returns the key text and its id. */
  createKey(opts?: { name?: string; ratePerMinute?: number; maxInstances?: number; actionsPerMinute?: number }): {
    token: string;
    id: string;
  };
  /** Run the keys CLI with arguments; returns its output and exit status. */
  keysCli(args: string[]): { status: number | null; stdout: string; stderr: string };
  /** The same without blocking this process (its sockets keep answering pings meanwhile). */
  keysCliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }>;
  /** Send a signal and wait for the process to exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * Start the real service (`node server/service/main.ts`) on a free loopback port with its own
 * DATA_DIR, and wait until it listens. Extra environment overrides the test defaults. `prefix` is a
 * command the service is started under (it must exec the rest of its arguments, e.g. `unshare ...`).
 */
export async function startService(env: Record<string, string> = {}, o: { prefix?: string[] } = {}): Promise<ServiceProcess> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'periscope-test-'));
  const fullEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    BROWSER_POOL_SIZE: '1',
    ...env,
  };
  const [file, ...args] = [...(o.prefix ?? []), process.execPath, join(ROOT, 'server/service/main.ts')];
  const child = spawn(file as string, args, {
    cwd: ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`service did not start in 60 s\n${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          // Errors reach the test's own output: a failure in CI then says why the service failed.
          if (typeof entry.level === 'number' && entry.level >= 50) process.stderr.write(`[service] ${line}\n`);
          if (entry.msg === 'service listening') {
            clearTimeout(timer);
            resolve(entry.url as string);
          }
        } catch {
          // not a log line
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening\n${stderr}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const keysCli = (args: string[]) => {
    const r = spawnSync(process.execPath, [join(ROOT, 'server/cli/keys.ts'), ...args], { cwd: ROOT, env: fullEnv, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const keysCliAsync = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'server/cli/keys.ts'), ...args],
        { cwd: ROOT, env: fullEnv, encoding: 'utf8' },
        (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  return {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    dataDir,
    child,
    logs,
    keysCli,
    keysCliAsync,
    createKey(opts = {}) {
      const args = ['create', '--name', opts.name ?? 'test'];
      if (opts.ratePerMinute) args.push('--rate-per-minute', String(opts.ratePerMinute));
      if (opts.maxInstances) args.push('--max-instances', String(opts.maxInstances));
      if (opts.actionsPerMinute) args.push('--actions-per-minute', String(opts.actionsPerMinute));
      const r = keysCli(args);
      if (r.status !== 0) throw new Error(`keys create failed: ${r.stderr}`);
      const token = r.stdout.trim().split('\n').pop() as string;
      return { token, id: token.split('_')[1] as string };
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      // A service killed outright cannot end its browsers: do it for it, as its next start would.
      const base = defaultUidBase(dataDir);
      await killUids(base, base + 2048);
      await removeStaleInstanceFolders(defaultInstancesDir(base));
      rmSync(defaultInstancesDir(base), { recursive: true, force: true });
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      return code;
    },
  };
}
