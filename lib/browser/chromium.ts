import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { killProcessesMentioning } from './reaper.ts';

export type ChromiumVersion = {
  Browser: string;
  'Protocol-Version': string;
  'User-Agent': string;
  'V8-Version': string;
  'WebKit-Version': string;
  webSocketDebuggerUrl: string;
};

export type LaunchOptions = {
  executable: string;
  profilesDir: string;
  proxyUrl: string;
  timeoutMs: number;
  viewport?: { width: number; height: number };
  extraArgs?: readonly string[];
};

/** Flags every instance runs with; see docs/decisions/0004-chromium-instances.md. */
export function chromiumArgs(profileDir: string, proxyUrl: string, viewport: { width: number; height: number }): string[] {
  return [
    '--headless',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${profileDir}`,
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
    // Every connection goes through the egress proxy, loopback included, and nothing goes around it.
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--window-size=${viewport.width},${viewport.height}`,
    'about:blank',
  ];
}

/**
 * One Chromium process tree with its own profile directory. `close()` kills the whole process
 * group and removes the profile; 'exit' fires once whatever ended the process.
 */
export class Chromium extends EventEmitter<{ exit: [{ code: number | null; signal: string | null; expected: boolean }] }> {
  readonly profileDir: string;
  readonly version: ChromiumVersion;
  /** The internal DevTools address, e.g. ws://127.0.0.1:40321/devtools/browser/<guid>. */
  readonly devtoolsUrl: URL;
  readonly pid: number;
  readonly #child: ChildProcess;
  #exited = false;
  #closing: Promise<void> | null = null;
  readonly #stderrTail: string[];

  private constructor(child: ChildProcess, profileDir: string, devtoolsUrl: URL, version: ChromiumVersion, stderrTail: string[]) {
    super();
    this.#child = child;
    this.pid = child.pid as number;
    this.profileDir = profileDir;
    this.devtoolsUrl = devtoolsUrl;
    this.version = version;
    this.#stderrTail = stderrTail;
    child.once('exit', (code, signal) => {
      this.#exited = true;
      this.emit('exit', { code, signal, expected: this.#closing !== null });
    });
  }

  get alive(): boolean {
    return !this.#exited;
  }

  /** The browser target's id, the last segment of the DevTools path. */
  get guid(): string {
    return this.devtoolsUrl.pathname.split('/').pop() as string;
  }

  get recentStderr(): string {
    return this.#stderrTail.join('\n');
  }

  static async launch(options: LaunchOptions): Promise<Chromium> {
    await mkdir(options.profilesDir, { recursive: true });
    const profileDir = await mkdtemp(join(options.profilesDir, 'profile-'));
    const viewport = options.viewport ?? { width: 1280, height: 720 };
    const args = [...chromiumArgs(profileDir, options.proxyUrl, viewport), ...(options.extraArgs ?? [])];
    const child = spawn(options.executable, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    const stderrTail: string[] = [];
    try {
      const devtoolsUrl = await waitForDevtools(child, stderrTail, options.timeoutMs);
      const version = await fetchVersion(devtoolsUrl);
      return new Chromium(child, profileDir, devtoolsUrl, version, stderrTail);
    } catch (err) {
      await destroy(child, profileDir);
      throw err;
    }
  }

  /** Kill the process group, wait for the exit, remove the profile. Safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= destroy(this.#child, this.profileDir);
    return this.#closing;
  }
}

function waitForDevtools(child: ChildProcess, tail: string[], timeoutMs: number): Promise<URL> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => finish(new Error(`Chromium did not start within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(line);
        if (m?.[1]) finish(null, new URL(m[1]));
      }
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${tail.slice(-3).join(' | ')}`));
    const onError = (err: Error) => finish(err);
    function finish(err: Error | null, url?: URL) {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      if (err) reject(err);
      else resolve(url as URL);
    }
    // Keep draining stderr for the life of the process, or Chromium blocks on a full pipe.
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function fetchVersion(devtoolsUrl: URL): Promise<ChromiumVersion> {
  const res = await fetch(`http://${devtoolsUrl.host}/json/version`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`Chromium answered /json/version with ${res.status}`);
  return (await res.json()) as ChromiumVersion;
}

async function destroy(child: ChildProcess, profileDir: string): Promise<void> {
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
  // Helpers that left the group (rare, but Chromium can re-parent) still name the profile.
  await killProcessesMentioning(profileDir);
  await rm(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}
