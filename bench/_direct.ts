import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Chromium, PreparedLaunch, type Isolation, type LaunchOptions } from '#service/browser/chromium.ts';
import { tailSessionId } from '#service/browser/cdp-mux.ts';
import { EgressPolicy } from '#service/browser/egress/policy.ts';
import { EgressProxy } from '#service/browser/egress/proxy.ts';
import { resolveChromium, type ChromiumExecutable } from '#service/browser/executable.ts';
import {
  createInstanceFolders,
  prepareInstancesDir,
  removeInstanceFolders,
  removeStaleInstanceFolders,
} from '#service/browser/instance-folders.ts';
import { InstanceCgroups } from '#service/browser/sandbox/cgroups.ts';
import { probeIsolation } from '#service/browser/sandbox/probe.ts';
import { spawnSandboxed, startSandboxed } from '#service/browser/sandbox/spawn.ts';
import { killUids, processesOfUids } from '#service/browser/sandbox/uids.ts';
import { defaultInstancesDir, defaultUidBase } from '#service/config.ts';
import { parseCidrList } from '#service/net/cidr.ts';

/**
 * The direct path of the browser benchmarks: raw Chromiums the bench launches itself with the
 * service's own launcher (same binary, flags and sandbox), driven straight over their DevTools
 * pipe with `mux.call`, no service in between. Used by bench/browser.ts and bench/live.ts only.
 */
export type Mode = 'sandbox' | 'single-tenant';

/** Uids the bench's own sandboxed Chromiums may take (one each at a time). */
const UIDS = 16;

export class DirectChromiums {
  readonly executable: ChromiumExecutable;
  readonly egress: EgressProxy;
  readonly #dir: string;
  readonly #uidBase: number;
  readonly #instancesDir: string;
  readonly #sandbox: Isolation | null;
  readonly #sandboxProblems: string[];

  private constructor(o: {
    executable: ChromiumExecutable;
    egress: EgressProxy;
    dir: string;
    uidBase: number;
    instancesDir: string;
    sandbox: Isolation | null;
    problems: string[];
  }) {
    this.executable = o.executable;
    this.egress = o.egress;
    this.#dir = o.dir;
    this.#uidBase = o.uidBase;
    this.#instancesDir = o.instancesDir;
    this.#sandbox = o.sandbox;
    this.#sandboxProblems = o.problems;
  }

  /** `allow`: CIDRs the egress proxy lets through (as BROWSER_EGRESS_ALLOW), e.g. the local page server's. */
  static async create(allow: string[] = []): Promise<DirectChromiums> {
    // A DATA_DIR of its own gives the bench a uid block and instances folder no service of this run uses.
    const dir = mkdtempSync(join(tmpdir(), 'periscope-bench-direct-'));
    const uidBase = defaultUidBase(dir);
    const instancesDir = await prepareInstancesDir(defaultInstancesDir(uidBase));
    const executable = await resolveChromium(process.env.CHROME_PATH);
    const egress = new EgressProxy(new EgressPolicy(parseCidrList(allow, 'allow')), pino({ level: 'silent' }));
    await egress.listen();
    const { isolation, report } = await probeIsolation({
      setting: 'sandbox',
      uidBase,
      uidCount: UIDS,
      tag: `bench-${uidBase}`,
      limits: { memoryBytes: 2048 * 1024 * 1024, pids: 2048 },
      instancesDir,
      chromiumDir: executable.installDir,
    });
    return new DirectChromiums({ executable, egress, dir, uidBase, instancesDir, sandbox: isolation, problems: report.problems });
  }

  /** Prepare and start at once, nothing made ahead. */
  launch(mode: Mode): Promise<Chromium> {
    return Chromium.launch(this.#launchOptions(mode));
  }

  /** Make what a launch needs before Chromium runs (the sandbox, waiting), as the service keeps ahead. */
  prepare(mode: Mode): Promise<PreparedLaunch> {
    return PreparedLaunch.make(this.#launchOptions(mode));
  }

  #launchOptions(mode: Mode): LaunchOptions {
    if (mode === 'sandbox' && !this.#sandbox) throw new Error(`no sandbox on this host: ${this.#sandboxProblems.join('; ')}`);
    const isolation: Isolation = mode === 'sandbox' ? (this.#sandbox as Isolation) : { mode: 'single-tenant' };
    return { executable: this.executable, instancesDir: this.#instancesDir, isolation, egress: this.egress, timeoutMs: 30_000 };
  }

  /**
   * Milliseconds from spawn to exit of `/usr/bin/true`: started plainly, or through the sandbox's
   * own launcher as an instance would be (the root wrapper, setpriv to an instance uid, bwrap's
   * namespaces and mounts, the egress relay), with or without joining the instance's cgroups.
   * Folders and cgroups are made before the clock starts, as they are not what is measured.
   */
  async startTrue(how: 'plain' | 'sandbox' | 'sandbox and cgroups'): Promise<number> {
    const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (how === 'plain') {
      const t0 = performance.now();
      await exited(spawn('/usr/bin/true', [], { stdio: 'ignore' }));
      return performance.now() - t0;
    }
    if (this.#sandbox?.mode !== 'sandbox') throw new Error(`no sandbox on this host: ${this.#sandboxProblems.join('; ')}`);
    const isolation = this.#sandbox;
    const uid = isolation.uids?.take() ?? null;
    const folders = await createInstanceFolders(this.#instancesDir, uid);
    const cgroups =
      how === 'sandbox and cgroups' && isolation.cgroups
        ? await InstanceCgroups.create(isolation.cgroups, folders.name, isolation.limits)
        : null;
    try {
      const t0 = performance.now();
      const child = spawnSandboxed({
        tools: isolation.tools,
        // A stand-in for Chromium: the same place in the sandbox, a program that ends at once.
        executable: { path: '/usr/bin/true', source: 'CHROME_PATH', installDir: '/usr/bin', fontsDir: null },
        folders,
        uid,
        cgroupFolders: cgroups?.folders ?? [],
        chromiumArgs: [],
      });
      // Told to start at once: the whole of a sandbox's making, as when nothing was prepared.
      startSandboxed(child, { width: 1, height: 1 });
      await exited(child);
      return performance.now() - t0;
    } finally {
      if (uid !== null) await killUids(uid, uid + 1);
      await cgroups?.remove();
      await removeInstanceFolders(folders);
      if (uid !== null) isolation.uids?.release(uid);
    }
  }

  /** Call after every launched Chromium is closed: ends strays, removes folders, cgroups and the proxy. */
  async close(): Promise<void> {
    await killUids(this.#uidBase, this.#uidBase + UIDS + 1);
    await removeStaleInstanceFolders(this.#instancesDir);
    rmSync(this.#instancesDir, { recursive: true, force: true });
    if (this.#sandbox?.mode === 'sandbox') {
      for (const c of this.#sandbox.cgroups?.controllers ?? []) await rmdir(c.dir).catch(() => {});
    }
    await this.egress.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * Processes named by `seeds` and every member of the process groups they lead: a Chromium started
 * without a sandbox leads its group (it is started detached), and only its first process names
 * the instance folder on its command line; its zygotes, renderers and utilities stay in the group.
 */
export function withProcessGroups(seeds: readonly number[]): number[] {
  const found = new Set(seeds);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (seeds.includes(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]))) found.add(Number(entry));
    } catch {
      // exited
    }
  }
  return [...found];
}

/** Every process of one raw Chromium: in a sandbox, those of its uid (when it has one); without, its process group. */
export async function directProcesses(chromium: Chromium): Promise<number[]> {
  if (chromium.uid !== null) return (await processesOfUids(chromium.uid, chromium.uid + 1)).map((p) => p.pid);
  return withProcessGroups([chromium.pid]);
}

/** Proportional set size of the given processes, summed, in MB. */
export async function pssMb(pids: readonly number[]): Promise<number> {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

/**
 * Events of one flattened session, read off the pipe: Chromium ends each of them with
 * `,"sessionId":"<id>"}`, so other sessions' traffic is skipped unparsed; the handler gets the
 * raw bytes (a reader of large events can scan rather than parse them).
 */
export function onSessionMessages(chromium: Chromium, sessionId: string, handler: (message: Buffer) => void): () => void {
  const listener = (message: Buffer) => {
    if (tailSessionId(message) === sessionId) handler(message);
  };
  chromium.pipe.on('message', listener);
  return () => void chromium.pipe.off('message', listener);
}

/** Resolves with the params of the first `method` event of `sessionId` from now on. */
export function nextEvent(chromium: Chromium, sessionId: string, method: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const needle = `"method":"${method}"`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${method} within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = onSessionMessages(chromium, sessionId, (message) => {
      if (!message.subarray(0, 128).toString('latin1').includes(needle)) return;
      clearTimeout(timer);
      stop();
      resolve((JSON.parse(message.toString('utf8')) as { params: Record<string, unknown> }).params);
    });
  });
}

/** The sandbox's own processes, around Chromium's: not counted as Chromium's work. */
const LAUNCHER_COMMANDS = new Set(['bash', 'setpriv', 'bwrap', 'sh', 'socat']);

/**
 * Milliseconds of CPU that Chromium's processes among `pids` (`directProcesses`) have used so far,
 * every thread counted (/proc/<pid>/task/<tid>/schedstat); the sandbox's own processes are left out.
 */
export function chromiumCpuMs(pids: readonly number[]): number {
  let ns = 0;
  for (const pid of pids) {
    try {
      if (LAUNCHER_COMMANDS.has(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())) continue;
      for (const task of readdirSync(`/proc/${pid}/task`))
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // gone
    }
  }
  return ns / 1e6;
}
