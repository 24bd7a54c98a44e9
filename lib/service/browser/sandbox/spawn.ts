import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChromiumExecutable } from '../executable.ts';
import type { InstanceFolders } from '../instance-folders.ts';
import { ROOT_WRAPPER, bwrapArgs, type SandboxFds } from './bwrap.ts';
import { SANDBOX, fontsConfig, groupFile, managedPolicy, passwdFile } from './layout.ts';

/** The host programs the sandbox is made with (found by the isolation probe). */
export type SandboxTools = { bash: string; bwrap: string; setpriv: string };

export type SandboxedLaunch = {
  tools: SandboxTools;
  executable: ChromiumExecutable;
  folders: InstanceFolders;
  /** The instance's host uid, or null when the service is not root (the sandbox then runs as the service's uid). */
  uid: number | null;
  cgroupFolders: readonly string[];
  chromiumArgs: readonly string[];
};

/** Descriptor numbers in the child, after stdin/out/err and the DevTools pipe (3: to Chromium, 4: from it). */
const FIRST_FD = 5;
const ROLES: (keyof SandboxFds)[] = ['home', 'downloads', 'uploads', 'run', 'chromium', 'passwd', 'group', 'policy', 'fonts'];

/**
 * Make an instance's sandbox and leave it waiting for its start (`startSandboxed`), Chromium not yet
 * running (`sandboxWaiting` says when it is made). Stdio of the child: 0 piped (the word to start),
 * 1 piped (the sandbox saying it waits), 2 piped (Chromium's log), 3 and 4 the DevTools pipe. Folders are handed over as open descriptors, so the instance's uid
 * needs no right to walk the host paths above them.
 */
export function spawnSandboxed(launch: SandboxedLaunch): ChildProcess {
  const { folders, executable } = launch;
  // The files the sandbox sees in /etc, written beside the instance's folders (bwrap copies them in).
  const etc = {
    passwd: join(folders.root, 'etc.passwd'),
    group: join(folders.root, 'etc.group'),
    policy: join(folders.root, 'etc.policy.json'),
    fonts: join(folders.root, 'etc.fonts.conf'),
  };
  writeFileSync(etc.passwd, passwdFile);
  writeFileSync(etc.group, groupFile);
  writeFileSync(etc.policy, JSON.stringify(managedPolicy(SANDBOX.downloads)));
  writeFileSync(etc.fonts, fontsConfig(executable.fontsDir ? `${SANDBOX.chromium}/fonts` : null, '/tmp/fontconfig'));
  const paths: Record<keyof SandboxFds, string> = {
    home: folders.home,
    downloads: folders.downloads,
    uploads: folders.uploads,
    run: folders.run,
    chromium: executable.installDir,
    ...etc,
  };
  const opened: number[] = [];
  try {
    for (const role of ROLES) opened.push(openSync(paths[role], constants.O_RDONLY));
    const fds = Object.fromEntries(ROLES.map((role, i) => [role, FIRST_FD + i])) as SandboxFds;
    const underUsr = executable.path.startsWith('/usr/');
    const bwrap = bwrapArgs({
      fds,
      chromium: underUsr ? { underUsr: executable.path } : { inInstallDir: executable.path.slice(executable.installDir.length + 1) },
      args: launch.chromiumArgs,
    });
    const keep = ['0', '1', '2', '3', '4', ...ROLES.map((_, i) => String(FIRST_FD + i))].join(' ');
    const drop =
      launch.uid === null
        ? []
        : [launch.tools.setpriv, `--reuid=${launch.uid}`, `--regid=${launch.uid}`, '--clear-groups', '--no-new-privs'];
    // `--norc --noprofile`: Debian's bash reads the user's ~/.bashrc when its standard input is a
    // socket (as Node's pipes are); no start-up file of the operator's belongs in a tenant's launch.
    // The environment is the one below only, so BASH_ENV and ENV are never set either.
    const argv = [
      '--norc',
      '--noprofile',
      '-c',
      ROOT_WRAPPER,
      'periscope-launch',
      keep,
      ...launch.cgroupFolders,
      '--',
      ...drop,
      launch.tools.bwrap,
      ...bwrap,
    ];
    const child = spawn(launch.tools.bash, argv, {
      detached: true,
      env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', NODE_ENV: 'production' },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...opened],
    });
    // A sandbox that died before its start makes its pipe refuse the word; its exit tells why.
    child.stdin?.on('error', () => {});
    return child;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/** Resolves once the sandbox waits for its start (bwrap.ts `AWAIT_START`); rejects if it exits or takes longer than `timeoutMs`. */
export function sandboxWaiting(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = '';
    const onData = (chunk: Buffer) => {
      said += chunk.toString('latin1');
      if (said.includes('waiting\n')) finish(null);
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`the sandbox exited before it was ready (code ${code}, signal ${signal})`));
    const timer = setTimeout(() => finish(new Error(`the sandbox was not ready within ${timeoutMs} ms`)), timeoutMs);
    function finish(err: Error | null) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.stdout?.resume(); // nothing more comes: Chromium's output goes to /dev/null
      if (err) reject(err);
      else resolve();
    }
    if (!child.stdout) return finish(new Error('the sandbox was not made to say when it waits'));
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Tell a waiting sandbox to become Chromium with this window (bwrap.ts `AWAIT_START`). A sandbox
 * that is already gone is not an error here: its exit tells the caller.
 */
export function startSandboxed(child: ChildProcess, window: { width: number; height: number }): void {
  if (!child.stdin) throw new Error('the sandbox was not made to wait for its start');
  child.stdin.end(`${Math.round(window.width)},${Math.round(window.height)}\n`);
}
