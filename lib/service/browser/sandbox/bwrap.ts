import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { SANDBOX, SANDBOX_UID } from './layout.ts';

/** File descriptors the launcher hands to bwrap, by role; each is bound or copied once, then closed by bwrap. */
export type SandboxFds = {
  home: number;
  downloads: number;
  uploads: number;
  run: number;
  chromium: number;
  passwd: number;
  group: number;
  policy: number;
  fonts: number;
};

export type SandboxSpec = {
  fds: SandboxFds;
  /** The Chromium binary's file name inside the install folder, or its absolute path when it lives under /usr. */
  chromium: { inInstallDir: string } | { underUsr: string };
  /** Chromium's arguments. */
  args: readonly string[];
};

/**
 * How a prepared sandbox waits for its start (docs/decisions/0050-instance-isolation.md): it says
 * `waiting` on its standard output, reads one line on its standard input, Chromium's window size as
 * `WIDTH,HEIGHT`, then becomes Chromium with the command line it was made with, that window and a
 * blank first page (chromium.ts `startArgs`, written out here). The end of its input without a line
 * is the service discarding it.
 */
export const AWAIT_START = [
  'echo waiting',
  'read -r window || exit 0',
  "case $window in ''|*[!0-9,]*|*,*,*|,*|*,) exit 64;; *,*) ;; *) exit 64;; esac",
  'exec "$@" "--window-size=$window" about:blank </dev/null >/dev/null',
].join('\n');

/**
 * Start the egress relay, wait for the word to start, then become Chromium. Runs as the instance's
 * uid inside the sandbox; the relay must not hold the DevTools pipe open.
 */
const ENTRY = [
  // Chromium dials no proxy while it starts (background networking is off), and socat listens in a
  // few milliseconds, long before the first page is asked for: nothing waits for it.
  `socat TCP-LISTEN:${SANDBOX.proxyPort},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${SANDBOX.egressSocket} </dev/null >/dev/null 2>&1 3>&- 4>&- &`,
  AWAIT_START,
].join('\n');

let zoneName: string | undefined;

/**
 * The host's time zone name (`Europe/Paris`), read once from the /etc/localtime link (or
 * /etc/timezone); UTC when neither names one that /usr/share/zoneinfo holds.
 */
export function hostTimeZone(): string {
  if (zoneName) return zoneName;
  let name = '';
  try {
    name = /\/zoneinfo\/(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1] ?? '';
  } catch {
    try {
      name = readFileSync('/etc/timezone', 'utf8').trim();
    } catch {
      // neither: UTC
    }
  }
  const valid = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name) && existsSync(`/usr/share/zoneinfo/${name}`);
  zoneName = valid ? name : 'Etc/UTC';
  return zoneName;
}

/** Host folders that are symlinks into /usr on merged-/usr systems, else mounted themselves. */
const ROOT_LINKS = ['bin', 'lib', 'lib64', 'sbin'];

/**
 * bubblewrap's arguments for one instance: its own user, PID, IPC, UTS and network namespaces; a
 * mount view of /usr, a few files of /etc, the Chromium install and the instance's own folders;
 * nothing else of the host. The network namespace holds only loopback, where a relay to the
 * instance's egress socket listens, so the egress proxy is the only way out.
 */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const { fds } = spec;
  const args = [
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--hostname',
    'browser',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'HOME',
    SANDBOX.home,
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'FONTCONFIG_FILE',
    '/etc/periscope/fonts.conf',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const name of ROOT_LINKS) {
    const host = `/${name}`;
    if (!existsSync(host)) continue;
    if (lstatSync(host).isSymbolicLink()) args.push('--symlink', `usr/${name}`, host);
    else args.push('--ro-bind', host, host);
  }
  // The system's font cache too, or fontconfig rescans every font at each start.
  for (const file of ['/etc/fonts', '/etc/ld.so.cache', '/var/cache/fontconfig']) if (existsSync(file)) args.push('--ro-bind', file, file);
  // The time zone as a link into /usr/share/zoneinfo, as on the host: a bound copy of the file makes
  // ICU compare it with every zone file at each start (thousands of opens, tens of milliseconds).
  const zone = hostTimeZone();
  args.push('--symlink', `/usr/share/zoneinfo/${zone}`, '/etc/localtime', '--setenv', 'TZ', zone);
  args.push(
    '--ro-bind-data',
    String(fds.passwd),
    '/etc/passwd',
    '--ro-bind-data',
    String(fds.group),
    '/etc/group',
    '--ro-bind-data',
    String(fds.fonts),
    '/etc/periscope/fonts.conf',
    // Full Chromium builds read their managed policy here (Chromium, then Google Chrome); the headless shell has none.
    '--ro-bind-data',
    String(fds.policy),
    '/etc/chromium/policies/managed/periscope.json',
    '--symlink',
    '/etc/chromium/policies',
    '/etc/opt/chrome/policies',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind-fd',
    String(fds.home),
    SANDBOX.home,
    '--bind-fd',
    String(fds.downloads),
    SANDBOX.downloads,
    '--ro-bind-fd',
    String(fds.uploads),
    SANDBOX.uploads,
    '--ro-bind-fd',
    String(fds.run),
    SANDBOX.run,
    '--ro-bind-fd',
    String(fds.chromium),
    SANDBOX.chromium,
    '--chdir',
    SANDBOX.home,
    '--',
    '/bin/sh',
    '-c',
    ENTRY,
    'periscope-sandbox',
    'inInstallDir' in spec.chromium ? `${SANDBOX.chromium}/${spec.chromium.inInstallDir}` : spec.chromium.underUsr,
    ...spec.args,
  );
  return args;
}

/**
 * The root-side wrapper: close every inherited descriptor that is not ours (a supervisor's pipe or
 * directory must not reach the sandbox), join the instance's cgroups, then drop to the instance's
 * uid. Arguments: the descriptors to keep, the cgroup folders, `--`, the command.
 */
export const ROOT_WRAPPER = [
  'keep=" $1 "; shift',
  'for f in /proc/$$/fd/*; do n=${f##*/}; case "$keep" in *" $n "*) ;; *) eval "exec $n>&-" 2>/dev/null;; esac; done',
  'while [ "$1" != "--" ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift',
  'exec "$@"',
].join('\n');
