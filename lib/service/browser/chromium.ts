import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CdpPipe } from '#shared/cdp/pipe.ts';
import { CdpMux } from './cdp-mux.ts';
import type { InstanceFolders as PolicyFolders } from './cdp-policy.ts';
import type { UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import type { InstanceEgress } from './egress/proxy.ts';
import type { ChromiumExecutable } from './executable.ts';
import { createInstanceFolders, promoteInstanceFolders, removeInstanceFolders, type InstanceFolders } from './instance-folders.ts';
import { InstanceCgroups, type CgroupSupport, type Limits } from './sandbox/cgroups.ts';
import { fontsConfig, SANDBOX } from './sandbox/layout.ts';
import { sandboxWaiting, spawnSandboxed, startSandboxed, type SandboxTools } from './sandbox/spawn.ts';
import { killUids, type UidPool } from './sandbox/uids.ts';
import { isTab, TabWatch } from './tab-watch.ts';

export type ChromiumVersion = {
  Browser: string;
  'Protocol-Version': string;
  'User-Agent': string;
  'V8-Version': string;
  'WebKit-Version': string;
  webSocketDebuggerUrl: string;
};

/** How instances are isolated: a sandbox per instance, or none (an operator's explicit single-tenant choice). */
export type Isolation =
  { mode: 'sandbox'; tools: SandboxTools; uids: UidPool | null; cgroups: CgroupSupport | null; limits: Limits } | { mode: 'single-tenant' };

export type LaunchOptions = {
  executable: ChromiumExecutable;
  /** DATA_DIR/browsers: one folder per instance. */
  instancesDir: string;
  isolation: Isolation;
  /**
   * The instance's way out, a listener of its own on the egress proxy: a Unix socket (sandbox) or a
   * loopback port (single-tenant, `socketPath` null).
   */
  egress: { serveInstance(socketPath: string | null, instance: string): Promise<InstanceEgress> };
  timeoutMs: number;
  viewport?: { width: number; height: number };
};

/**
 * Chromium's flags, the same for every start (docs/decisions/0004-chromium-instances.md and
 * 0050-instance-isolation.md); `startArgs` ends the command line.
 */
export function chromiumArgs(o: { profileDir: string; proxyUrl: string; noSandbox: boolean }): string[] {
  return [
    '--headless',
    ...(o.noSandbox ? ['--no-sandbox'] : []),
    '--remote-debugging-pipe',
    '--disable-gpu',
    `--user-data-dir=${o.profileDir}`,
    // Chromium otherwise keeps dialling out and leaves scratch files behind after a kill.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-breakpad',
    '--disable-crash-reporter',
    '--password-store=basic',
    '--use-mock-keychain',
    '--mute-audio',
    '--disable-client-side-phishing-detection',
    '--disable-domain-reliability',
    '--disable-default-apps',
    '--disable-component-extensions-with-background-pages',
    '--no-pings',
    '--metrics-recording-only',
    '--safebrowsing-disable-auto-update',
    '--disable-features=OptimizationHints,OptimizationHintsFetching,OptimizationGuideModelDownloading,MediaRouter,DialMediaRouteProvider,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
    // Every connection goes through the egress proxy, loopback included, and nothing goes around it.
    `--proxy-server=${o.proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
}

/**
 * The end of Chromium's command line, known only when it starts: its window (the viewport and what
 * the binary adds around it) and a blank first page. A prepared sandbox appends the same itself
 * from the window it is sent (sandbox/bwrap.ts `AWAIT_START`).
 */
export function startArgs(window: { width: number; height: number }): string[] {
  return [`--window-size=${window.width},${window.height}`, 'about:blank'];
}

/** What a start of Chromium needs of its caller: a saved profile to restore (lib/service/profiles/). */
export type StartHooks = {
  /** Before Chromium runs: fill its user data folder `profileDir` (not yet made), giving what it makes to `owner` (null: the service's uid). */
  beforeStart?: (profileDir: string, owner: number | null) => Promise<void>;
};

/** What `Chromium.keepProfileOnEnd` made of a save asked for: taken, or refused and why. */
export type KeepProfile = 'kept' | 'ending' | 'kept-already';

/** How long an instance whose profile is kept is given to exit by itself (flushing its cookies and storage) before it is killed. */
const PROFILE_EXIT_MS = 5000;

/** Not isolated: the fontconfig file beside the instance's folders (sandbox/layout.ts `fontsConfig`). */
const FONTS_CONF = 'fonts.conf';

/**
 * What a build's window adds around the page, measured once per binary: full Chromium's headless
 * window keeps room for browser UI (1280x720 gives a 1280x633 page), the headless shell none.
 */
const insetsByBinary = new Map<string, { width: number; height: number }>();

type Teardown = {
  folders: InstanceFolders | null;
  cgroups: InstanceCgroups | null;
  uid: number | null;
  uids: UidPool | null;
  egress: InstanceEgress | null;
  /** Once nothing of the instance runs and before its folders go: keep its user data folder (a saved profile). */
  keepProfile?: (profileDir: string) => Promise<void>;
};

/** The user data folder of an instance on the host (in the sandbox: SANDBOX.profile, the same folder). */
const profileDirOf = (folders: InstanceFolders): string => join(folders.home, 'profile');

/** How a started process becomes a Chromium: set by Chromium, used by PreparedLaunch (its constructor stays private). */
let whenReady: (
  child: ChildProcess,
  folders: InstanceFolders,
  teardown: Teardown,
  sandboxed: boolean,
  stderrTail: string[],
  o: { timeoutMs: number; executable: ChromiumExecutable; viewport: { width: number; height: number } },
) => Promise<Chromium>;

/**
 * One Chromium process tree, isolated in its own sandbox (or not, in single-tenant mode), driven
 * over its DevTools pipe. `close()` ends every process of the instance and removes all it wrote;
 * 'exit' fires once, whatever ended it.
 */
export class Chromium extends EventEmitter<{ exit: [{ code: number | null; signal: string | null; expected: boolean }] }> {
  readonly version: ChromiumVersion;
  /** The id of the browser's DevTools address (/devtools/browser/<guid>). */
  readonly guid = randomUUID();
  readonly pid: number;
  readonly mux: CdpMux;
  readonly pipe: CdpPipe;
  /** Its tabs and the page in use, for the list of a key's browsers. */
  readonly tabs: TabWatch;
  /** The instance's folders as Chromium sees them, for the CDP policy. */
  readonly policyFolders: PolicyFolders;
  /** The instance's host folders (downloads and uploads are served by the files API). */
  readonly folders: InstanceFolders;
  readonly isolated: boolean;
  readonly uid: number | null;
  readonly #child: ChildProcess;
  readonly #teardown: Teardown;
  readonly #stderrTail: string[];
  #exited = false;
  #closing: Promise<void> | null = null;

  private constructor(
    child: ChildProcess,
    pipe: CdpPipe,
    mux: CdpMux,
    version: ChromiumVersion,
    folders: InstanceFolders,
    teardown: Teardown,
    isolated: boolean,
    stderrTail: string[],
  ) {
    super();
    this.#child = child;
    this.pid = child.pid as number;
    this.pipe = pipe;
    this.mux = mux;
    this.tabs = new TabWatch(mux);
    this.version = version;
    this.#teardown = teardown;
    this.folders = folders;
    this.uid = teardown.uid;
    this.isolated = isolated;
    this.policyFolders = isolated
      ? { downloads: SANDBOX.downloads, uploads: SANDBOX.uploads }
      : { downloads: folders.downloads, uploads: folders.uploads };
    this.#stderrTail = stderrTail;
    child.once('exit', (code, signal) => {
      this.#exited = true;
      this.emit('exit', { code, signal, expected: this.#closing !== null });
    });
  }

  get alive(): boolean {
    return !this.#exited;
  }

  get recentStderr(): string {
    return this.#stderrTail.join('\n');
  }

  get cgroupFolders(): readonly string[] {
    return this.#teardown.cgroups?.folders ?? [];
  }

  /**
   * Send the browser's traffic through the tenant's own proxy (after the egress proxy), or straight
   * out with null. Set before the browser is handed to its client: a warm browser has opened nothing yet.
   */
  routeThrough(proxy: UpstreamProxy | null): void {
    if (!this.#teardown.egress) throw new Error('the instance has no egress listener of its own');
    this.#teardown.egress.routeThrough(proxy);
  }

  /** Why the last connection to `host` through the tenant's proxy failed, if it did. */
  egressFailure(host: string): string | undefined {
    return this.#teardown.egress?.failure(host);
  }

  /** Prepare a launch and start it at once (PreparedLaunch says what each step does). */
  static async launch(options: LaunchOptions): Promise<Chromium> {
    return (await PreparedLaunch.make(options)).start();
  }

  static {
    // PreparedLaunch alone makes Chromiums, once their process answers on its pipe.
    whenReady = async (child, folders, teardown, sandboxed, stderrTail, o) => {
      const pipe = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
      const mux = new CdpMux(pipe);
      const info = await ready(child, mux, stderrTail, o.timeoutMs);
      const browser = new Chromium(child, pipe, mux, toVersion(info), folders, teardown, sandboxed, stderrTail);
      // Asked for, not waited for: Chromium takes the pipe's commands in order, so every command of
      // a client comes after it and every tab is seen, and the client is not kept waiting while the
      // browser, still starting, makes its first tab. A browser that fails it is dying: its exit says why.
      const discovering = browser.tabs.discover().catch(() => {});
      if (!insetsByBinary.has(o.executable.path)) {
        await discovering;
        await calibrate(browser, o.executable.path, o.viewport);
      }
      return browser;
    };
  }

  /**
   * Before its folders go, hand its user data folder to `keep` (a persisting profile's save), once
   * nothing of the instance runs any more, whatever ends it. Its close then first asks Chromium to
   * exit by itself, so that it writes out its cookies and storage. Refused, and `keep` never
   * called, once its close has begun (`ending`: the teardown under way would not run it) or when
   * another `keep` was taken before (`kept-already`: one save per browser).
   */
  keepProfileOnEnd(keep: (profileDir: string) => Promise<void>): KeepProfile {
    if (this.#closing) return 'ending';
    if (this.#teardown.keepProfile) return 'kept-already';
    this.#teardown.keepProfile = keep;
    return 'kept';
  }

  /** Whether its user data folder is kept when it ends (keepProfileOnEnd was called). */
  get keepsProfile(): boolean {
    return this.#teardown.keepProfile !== undefined;
  }

  /** End every process of the instance, wait for them, remove its folders and cgroups. Safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#teardown.keepProfile && !this.#exited) await this.#exitGracefully();
      await destroy(this.#child, this.#teardown);
    })();
    return this.#closing;
  }

  /** Ask Chromium to close (it then flushes what it holds in memory) and wait for its exit, at most PROFILE_EXIT_MS. */
  async #exitGracefully(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.#exited) resolve();
      else this.#child.once('exit', () => resolve());
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, PROFILE_EXIT_MS)));
    this.mux.call('Browser.close').catch(() => {});
    await Promise.race([exited, late]);
    clearTimeout(timer);
  }
}

/**
 * Everything an instance needs before its Chromium runs, made ahead of the /start that uses it
 * (docs/decisions/0050-instance-isolation.md, "A prepared sandbox"). Isolated: its uid, folders,
 * egress socket and cgroups, and the sandbox itself, already in its cgroups and namespaces as the
 * instance's uid, the relay listening, waiting to become Chromium. Not isolated: its folders.
 * `start()` is then Chromium's own start and nothing else. Use it once: start it or discard it.
 */
export class PreparedLaunch {
  readonly #options: LaunchOptions;
  readonly #teardown: Teardown;
  readonly #stderrTail: string[];
  #folders: InstanceFolders;
  #child: ChildProcess | null;
  #used = false;

  private constructor(o: {
    options: LaunchOptions;
    folders: InstanceFolders;
    teardown: Teardown;
    child: ChildProcess | null;
    stderrTail: string[];
  }) {
    this.#options = o.options;
    this.#folders = o.folders;
    this.#teardown = o.teardown;
    this.#child = o.child;
    this.#stderrTail = o.stderrTail;
  }

  static async make(options: LaunchOptions): Promise<PreparedLaunch> {
    const { isolation } = options;
    const sandboxed = isolation.mode === 'sandbox';
    const uid = sandboxed ? (isolation.uids?.take() ?? null) : null;
    const teardown: Teardown = {
      folders: null,
      cgroups: null,
      uid,
      uids: sandboxed ? isolation.uids : null,
      egress: null,
    };
    let child: ChildProcess | null = null;
    const stderrTail: string[] = [];
    try {
      const folders = await createInstanceFolders(options.instancesDir, uid, { prepared: true });
      teardown.folders = folders;
      teardown.egress = await options.egress.serveInstance(sandboxed ? `${folders.run}/egress.sock` : null, folders.name);
      if (sandboxed) {
        if (isolation.cgroups) teardown.cgroups = await InstanceCgroups.create(isolation.cgroups, folders.name, isolation.limits);
        child = spawnSandboxed({
          tools: isolation.tools,
          executable: options.executable,
          folders,
          uid,
          cgroupFolders: teardown.cgroups?.folders ?? [],
          chromiumArgs: chromiumArgs({ profileDir: SANDBOX.profile, proxyUrl: `http://127.0.0.1:${SANDBOX.proxyPort}`, noSandbox: false }),
        });
        drainStderr(child, stderrTail);
        // Prepared means made: a sandbox that cannot be made fails here, not at its start.
        await sandboxWaiting(child, options.timeoutMs).catch((err: Error) => {
          throw new Error(`${err.message}: ${stderrTail.slice(-3).join(' | ')}`);
        });
      } else if (options.executable.fontsDir) {
        // The fonts that ship with the binary, as in the sandbox: a page looks the same isolated or not.
        await writeFile(join(folders.root, FONTS_CONF), fontsConfig(options.executable.fontsDir, null));
      }
      return new PreparedLaunch({ options, folders, teardown, child, stderrTail });
    } catch (err) {
      await destroy(child, teardown);
      throw err;
    }
  }

  /** Not yet started nor discarded, and its sandbox (if it has one) still waits. */
  get usable(): boolean {
    return !this.#used && (this.#child === null || (this.#child.exitCode === null && this.#child.signalCode === null));
  }

  /** Start Chromium; resolves once it answers on its DevTools pipe. A failed start leaves nothing behind. */
  async start(hooks: StartHooks = {}): Promise<Chromium> {
    if (this.#used) throw new Error('a prepared launch starts once');
    this.#used = true;
    const o = this.#options;
    const viewport = o.viewport ?? { width: 1280, height: 720 };
    const insets = insetsByBinary.get(o.executable.path) ?? { width: 0, height: 0 };
    const window = { width: viewport.width + insets.width, height: viewport.height + insets.height };
    try {
      const folders = await promoteInstanceFolders(this.#folders);
      this.#folders = folders;
      this.#teardown.folders = folders;
      // Nothing of the instance runs yet as its uid but the waiting sandbox: its profile is written
      // before anything the tenant controls can touch the folder.
      await hooks.beforeStart?.(profileDirOf(folders), this.#teardown.uid);
      if (this.#child) startSandboxed(this.#child, window);
      else {
        this.#child = spawn(
          o.executable.path,
          [
            ...chromiumArgs({
              profileDir: `${folders.home}/profile`,
              proxyUrl: this.#teardown.egress?.url ?? '',
              noSandbox: process.getuid?.() === 0,
            }),
            ...startArgs(window),
          ],
          {
            detached: true,
            env: {
              ...process.env,
              HOME: folders.home,
              TMPDIR: folders.home,
              XDG_CACHE_HOME: join(folders.home, '.cache'),
              ...(o.executable.fontsDir ? { FONTCONFIG_FILE: join(folders.root, FONTS_CONF) } : {}),
            },
            stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
          },
        );
        drainStderr(this.#child, this.#stderrTail);
      }
      return await whenReady(this.#child, folders, this.#teardown, o.isolation.mode === 'sandbox', this.#stderrTail, {
        timeoutMs: o.timeoutMs,
        executable: o.executable,
        viewport,
      });
    } catch (err) {
      await destroy(this.#child, this.#teardown);
      throw err;
    }
  }

  /** End what was prepared and remove it. */
  async discard(): Promise<void> {
    if (this.#used) return;
    this.#used = true;
    await destroy(this.#child, this.#teardown);
  }
}

type BrowserInfo = { protocolVersion: string; product: string; revision: string; userAgent: string; jsVersion: string };

function toVersion(info: BrowserInfo): ChromiumVersion {
  const webkit = /AppleWebKit\/([\d.]+)/.exec(info.userAgent)?.[1] ?? '537.36';
  return {
    Browser: info.product,
    'Protocol-Version': info.protocolVersion,
    'User-Agent': info.userAgent,
    'V8-Version': info.jsVersion,
    'WebKit-Version': `${webkit} (${info.revision})`,
    webSocketDebuggerUrl: '',
  };
}

function drainStderr(child: ChildProcess, tail: string[]): void {
  let buffered = '';
  // Keep draining for the life of the process, or Chromium blocks on a full pipe.
  child.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (/dbus|Fontconfig/.test(line)) continue;
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  });
}

/** Chromium answers on its pipe once it is ready; an exit or the deadline first is a failed launch. */
function ready(child: ChildProcess, mux: CdpMux, tail: string[], timeoutMs: number): Promise<BrowserInfo> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`Chromium did not start within ${timeoutMs} ms: ${tail.slice(-3).join(' | ')}`)),
      timeoutMs,
    );
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${tail.slice(-3).join(' | ')}`));
    const onError = (err: Error) => finish(err);
    function finish(err: Error | null, info?: BrowserInfo) {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      if (err) reject(err);
      else resolve(info as BrowserInfo);
    }
    child.once('exit', onExit);
    child.once('error', onError);
    // A pipe that closes first means the process is exiting: its exit (and log) tells why.
    mux.call<BrowserInfo>('Browser.getVersion').then(
      (info) => finish(null, info),
      (err: Error) => setTimeout(() => finish(err), 1000),
    );
  });
}

/** Measure what the binary's window adds around the page, fix this instance's window, remember it for the next. */
async function calibrate(browser: Chromium, binary: string, viewport: { width: number; height: number }): Promise<void> {
  const { targetInfos } = await browser.mux.call<{ targetInfos: { targetId: string; type: string; url: string }[] }>('Target.getTargets');
  // A tab, not a piece of full Chromium's own UI (those are pages too, and have no window).
  const page = targetInfos.find(isTab);
  if (!page) return;
  const { sessionId } = await browser.mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  try {
    const { result } = await browser.mux.call<{ result: { value: [number, number] } }>(
      'Runtime.evaluate',
      { expression: '[innerWidth, innerHeight]', returnByValue: true },
      sessionId,
    );
    const insets = { width: viewport.width - result.value[0], height: viewport.height - result.value[1] };
    insetsByBinary.set(binary, insets);
    if (insets.width === 0 && insets.height === 0) return;
    const windowId = await windowOf(browser, page.targetId);
    await browser.mux.call('Browser.setWindowBounds', {
      windowId,
      bounds: { width: viewport.width + insets.width, height: viewport.height + insets.height },
    });
  } finally {
    await browser.mux.call('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

/**
 * The window of the first tab. On a busy host full Chromium may list the tab a moment before its
 * window is registered ("Browser window not found"): ask again for up to a second.
 */
async function windowOf(browser: Chromium, targetId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await browser.mux.call<{ windowId: number }>('Browser.getWindowForTarget', { targetId })).windowId;
    } catch (err) {
      if (attempt >= 20 || !/window not found/i.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function destroy(child: ChildProcess | null, t: Teardown): Promise<void> {
  if (child) {
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
  }
  // Whatever left the process group (Chromium re-parents some helpers) is still in the instance's
  // cgroups and runs as its uid: none of it may outlive the instance, nor its uid be reused before.
  if (t.cgroups) {
    for (const pid of await t.cgroups.processes()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  if (t.uid !== null) await killUids(t.uid, t.uid + 1);
  await t.cgroups?.remove();
  await t.egress?.close().catch(() => {});
  if (t.folders && t.keepProfile) await t.keepProfile(profileDirOf(t.folders));
  if (t.folders) await removeInstanceFolders(t.folders);
  if (t.uid !== null) t.uids?.release(t.uid);
}
