import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { chown, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SANDBOX, TRIAL_SYSTEM } from './layout.ts';

export type FolderTrialOptions = {
  bwrap: string;
  /** The uid an instance runs as (the service's own when undefined). */
  uid: number | undefined;
  instancesDir: string;
  chromiumDir: string;
};

const TRIAL_TIMEOUT_MS = 20_000;

/**
 * A trial sandbox given what every instance is given: a home folder made in the instances folder
 * and owned by the instance's uid, and the Chromium install, both by descriptor (spawn.ts), run as
 * that uid. bubblewrap binds a descriptor through /proc/self/fd, which the kernel refuses when the
 * uid may not walk the host path above it (a TMPDIR inside a folder only root may enter). Returns
 * why instances cannot start, or null when they can.
 */
export async function trialFolders(o: FolderTrialOptions): Promise<string | null> {
  const root = join(o.instancesDir, `probe-${randomBytes(6).toString('hex')}`);
  const home = join(root, 'home');
  const opened: number[] = [];
  try {
    await mkdir(root, { mode: 0o711 });
    await mkdir(home, { mode: 0o700 });
    if (o.uid !== undefined) await chown(home, o.uid, o.uid);
    for (const path of [home, o.chromiumDir]) opened.push(openSync(path, constants.O_RDONLY));
    const args = [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--die-with-parent',
      ...TRIAL_SYSTEM,
      '--bind-fd',
      '3',
      SANDBOX.home,
      '--ro-bind-fd',
      '4',
      SANDBOX.chromium,
      '--',
      '/bin/true',
    ];
    const output = await run(o.bwrap, args, o.uid, opened);
    if (output === null) return null;
    const blocked = [o.instancesDir, o.chromiumDir].map((path) => unwalkable(path, o.uid)).find(Boolean);
    return `instances cannot reach their folders (${output})${blocked ? `: ${blocked}` : ''}`;
  } catch (err) {
    return `instances' folders cannot be made in ${o.instancesDir}: ${(err as Error).message}`;
  } finally {
    for (const fd of opened) closeSync(fd);
    await rm(root, { recursive: true, force: true });
  }
}

/** Null when it exited 0, else what it said. */
function run(file: string, args: string[], uid: number | undefined, fds: number[]): Promise<string | null> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(file, args, {
      ...(uid === undefined ? {} : { uid, gid: uid }),
      env: { PATH: '/usr/bin:/bin', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe', ...fds],
      timeout: TRIAL_TIMEOUT_MS,
    });
    let said = '';
    child.stdout?.on('data', (c: Buffer) => (said += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (said += c.toString()));
    child.once('error', (err: Error) => resolve(err.message));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(null);
      const last = said.trim().split('\n').slice(-2).join(' ');
      resolve(last || `exit ${code ?? signal}`);
    });
  });
}

/**
 * The first folder above (or at) `path` that `uid` may not walk, named with how to fix it; null
 * when every one is walkable (or the service's own uid runs instances).
 */
export function unwalkable(path: string, uid: number | undefined): string | null {
  if (uid === undefined) return null;
  const chain: string[] = [];
  for (let dir = path; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    let mode: number;
    let owner: number;
    let group: number;
    try {
      ({ mode, uid: owner, gid: group } = statSync(dir));
    } catch {
      continue;
    }
    const walkable = owner === uid ? mode & 0o100 : group === uid ? mode & 0o010 : mode & 0o001;
    if (!walkable)
      return `${dir} (mode ${(mode & 0o777).toString(8).padStart(3, '0')}) may not be entered by other users${dir === path ? '' : `, and ${path} is inside it`}; give it o+x (chmod o+x ${dir}), or set BROWSER_INSTANCES_DIR (or TMPDIR) to a folder ${dir === path ? 'they may enter' : 'outside it'}`;
  }
  return null;
}
