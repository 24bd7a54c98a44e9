import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { trialFolders } from './folder-trial.ts';
import { TRIAL_SYSTEM } from './layout.ts';
import type { Isolation } from '../chromium.ts';
import { prepareCgroups } from './cgroups.ts';
import type { SandboxTools } from './spawn.ts';
import { UidPool } from './uids.ts';

/** What the host allows, as logged at start and reported on /healthz and /metrics. */
export type IsolationReport = {
  /** `sandbox`: every instance isolated; `single-tenant`: none, by the operator's choice; `unavailable`: no browsers. */
  mode: 'sandbox' | 'single-tenant' | 'unavailable';
  /** Each instance under a uid of its own (the service runs as root), else the service's uid. */
  uidPerInstance: boolean;
  /** Chromium's own sandbox (renderers in their own namespaces, seccomp) is on. */
  chromiumSandbox: boolean;
  /** Network: a namespace of its own reaching only the egress proxy, or the host's. */
  network: 'namespace' | 'host';
  cgroups: { version: 1 | 2; memory: boolean; pids: boolean } | null;
  /** Why something is missing. */
  problems: string[];
};

export type ProbeOptions = {
  setting: 'sandbox' | 'single-tenant';
  uidBase: number;
  /** Uids to reserve: one per instance that can exist at once (capacity and warm pool). */
  uidCount: number;
  /** The bubblewrap binary, when not the one on the search path. */
  bwrapPath?: string;
  /** A name for this service's cgroup folders. */
  tag: string;
  limits: { memoryBytes: number; pids: number };
  /** The folder instances' folders are made in (made already), and the Chromium install: an instance must reach both. */
  instancesDir: string;
  chromiumDir: string;
};

const SEARCH_PATH = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

function which(name: string): string | null {
  for (const dir of SEARCH_PATH) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

function run(file: string, args: string[], uid: number | undefined, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        timeout: timeoutMs,
        ...(uid === undefined ? {} : { uid, gid: uid }),
        env: { PATH: SEARCH_PATH.join(':'), NODE_ENV: 'production' },
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim().split('\n').slice(-2).join(' ');
        if (!err) return resolve({ ok: true, output });
        const why = err.killed ? `timed out after ${timeoutMs / 1000} s` : `exit ${String(err.code ?? err.signal)}`;
        resolve({ ok: false, output: output ? `${why}: ${output}` : why });
      },
    );
  });
}

/**
 * The trial, tried up to three times: creating a network namespace can stall for seconds while
 * the kernel tears down many others (right after a burst of instances ended), which says nothing
 * about whether the host can isolate.
 */
async function trialSandbox(bwrap: string, args: string[], uid: number | undefined): Promise<{ ok: boolean; output: string }> {
  let last = { ok: false, output: '' };
  for (let attempt = 0; attempt < 3 && !last.ok; attempt++) last = await run(bwrap, args, uid, 20_000);
  return last;
}

/**
 * Find out how instances can be isolated here. The sandbox needs bubblewrap, socat (the relay to
 * the egress socket), user namespaces that nest (Chromium makes its own inside), and, for a uid
 * per instance, a service running as root. A trial sandbox is started to prove it, as the first
 * instance's uid would be.
 */
export async function probeIsolation(o: ProbeOptions): Promise<{ report: IsolationReport; isolation: Isolation | null }> {
  const root = process.getuid?.() === 0;
  if (o.setting === 'single-tenant') {
    return {
      report: {
        mode: 'single-tenant',
        uidPerInstance: false,
        chromiumSandbox: !root,
        network: 'host',
        cgroups: null,
        problems: ['BROWSER_ISOLATION=single-tenant: instances are not isolated from the host or each other'],
      },
      isolation: { mode: 'single-tenant' },
    };
  }
  const problems: string[] = [];
  const tools = {
    bash: which('bash'),
    bwrap: o.bwrapPath ?? which('bwrap'),
    setpriv: which('setpriv'),
    socat: which('socat'),
    unshare: which('unshare'),
  };
  if (!tools.bwrap) problems.push('bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)');
  if (!tools.socat) problems.push('socat is not installed (Debian/Ubuntu: apt-get install socat)');
  if (!tools.bash) problems.push('bash is not installed');
  if (root && !tools.setpriv) problems.push('setpriv (util-linux) is not installed');
  const unavailable = (): { report: IsolationReport; isolation: null } => ({
    report: { mode: 'unavailable', uidPerInstance: false, chromiumSandbox: false, network: 'host', cgroups: null, problems },
    isolation: null,
  });
  if (problems.length) return unavailable();

  // A trial run as an instance would run: its own uid, namespaces, and a nested user namespace inside.
  const trialUid = root ? o.uidBase + o.uidCount : undefined;
  const trial = await trialSandbox(
    tools.bwrap as string,
    [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--die-with-parent',
      ...TRIAL_SYSTEM,
      '--tmpfs',
      '/tmp',
      '--',
      ...(tools.unshare ? ['/usr/bin/unshare', '--user', '--map-root-user', '/bin/true'] : ['/bin/true']),
    ],
    trialUid,
  );
  if (!trial.ok) {
    problems.push(
      `a trial sandbox failed (user namespaces may be disabled: kernel.unprivileged_userns_clone, user.max_user_namespaces): ${trial.output}`,
    );
    return unavailable();
  }
  // What every instance needs besides: its own folders and the Chromium install, handed over by
  // descriptor, which bwrap can bind only where the instance's uid may walk the host path.
  const folders = await trialFolders({
    bwrap: tools.bwrap as string,
    uid: trialUid,
    instancesDir: o.instancesDir,
    chromiumDir: o.chromiumDir,
  });
  if (folders) {
    problems.push(folders);
    return unavailable();
  }
  const { support, problem } = root
    ? await prepareCgroups(o.tag)
    : { support: null, problem: 'the service is not root: no per-instance cgroups' };
  if (problem) problems.push(`cgroups: ${problem}`);
  if (!root) problems.push('the service is not root: instances share its uid (each still in its own namespaces and mount view)');
  const report: IsolationReport = {
    mode: 'sandbox',
    uidPerInstance: root,
    chromiumSandbox: true,
    network: 'namespace',
    cgroups: support
      ? {
          version: support.version,
          memory: support.controllers.some((c) => c.name === 'memory'),
          pids: support.controllers.some((c) => c.name === 'pids'),
        }
      : null,
    problems,
  };
  const sandboxTools: SandboxTools = { bash: tools.bash as string, bwrap: tools.bwrap as string, setpriv: tools.setpriv ?? '' };
  return {
    report,
    isolation: {
      mode: 'sandbox',
      tools: sandboxTools,
      uids: root ? new UidPool(o.uidBase, o.uidCount) : null,
      cgroups: support,
      limits: o.limits,
    },
  };
}
