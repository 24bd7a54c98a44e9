import assert from 'node:assert/strict';
import { execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { after, describe, it } from 'node:test';
import { chromiumArgs, startArgs } from '../chromium.ts';
import { AWAIT_START, ROOT_WRAPPER, bwrapArgs, hostTimeZone, type SandboxFds, type SandboxSpec } from './bwrap.ts';
import { SANDBOX, SANDBOX_UID } from './layout.ts';

const fds: SandboxFds = { home: 5, downloads: 6, uploads: 7, run: 8, chromium: 9, passwd: 10, group: 11, policy: 12, fonts: 13 };
const args = chromiumArgs({
  profileDir: SANDBOX.profile,
  proxyUrl: `http://127.0.0.1:${SANDBOX.proxyPort}`,
  noSandbox: false,
});
const spec: SandboxSpec = { fds, chromium: { inInstallDir: 'chrome-headless-shell' }, args };

/** How many arguments each bwrap option takes (bubblewrap 0.8's --help). */
const ARITY: Record<string, number> = {
  '--unshare-all': 0,
  '--share-net': 0,
  '--unshare-user': 0,
  '--unshare-user-try': 0,
  '--unshare-ipc': 0,
  '--unshare-pid': 0,
  '--unshare-net': 0,
  '--unshare-uts': 0,
  '--unshare-cgroup': 0,
  '--unshare-cgroup-try': 0,
  '--userns': 1,
  '--pidns': 1,
  '--uid': 1,
  '--gid': 1,
  '--hostname': 1,
  '--chdir': 1,
  '--clearenv': 0,
  '--setenv': 2,
  '--unsetenv': 1,
  '--bind': 2,
  '--bind-try': 2,
  '--dev-bind': 2,
  '--dev-bind-try': 2,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--bind-fd': 2,
  '--ro-bind-fd': 2,
  '--remount-ro': 1,
  '--proc': 1,
  '--dev': 1,
  '--tmpfs': 1,
  '--mqueue': 1,
  '--dir': 1,
  '--file': 2,
  '--bind-data': 2,
  '--ro-bind-data': 2,
  '--symlink': 2,
  '--seccomp': 1,
  '--new-session': 0,
  '--die-with-parent': 0,
  '--as-pid-1': 0,
  '--cap-add': 1,
  '--cap-drop': 1,
  '--perms': 1,
  '--chmod': 2,
};

type Option = { name: string; values: string[] };

/** bwrap's options, in order, and the command after `--`. */
function parse(argv: readonly string[]): { options: Option[]; command: string[] } {
  const options: Option[] = [];
  let i = 0;
  while (i < argv.length && argv[i] !== '--') {
    const name = argv[i] as string;
    const arity = ARITY[name];
    assert.notEqual(arity, undefined, `unknown bwrap option ${name}: review it and add it to ARITY`);
    options.push({ name, values: argv.slice(i + 1, i + 1 + (arity as number)) as string[] });
    i += 1 + (arity as number);
  }
  assert.equal(argv[i], '--', 'the command follows --');
  return { options, command: argv.slice(i + 1) as string[] };
}

const parsed = parse(bwrapArgs(spec));
const named = (name: string) => parsed.options.filter((o) => o.name === name);
const has = (name: string) => named(name).length > 0;

/** Host paths the sandbox may see (read-only). */
const ALLOWED_SOURCES = ['/usr', '/etc/fonts', '/etc/ld.so.cache', '/var/cache/fontconfig', '/bin', '/lib', '/lib64', '/sbin'];

describe('bwrapArgs: namespaces and process', () => {
  for (const flag of [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
  ]) {
    it(`passes ${flag}`, () => assert.ok(has(flag)));
  }

  it('never shares the network or drops namespaces', () => {
    for (const flag of ['--share-net', '--unshare-user-try', '--userns', '--pidns', '--as-pid-1', '--cap-add']) assert.ok(!has(flag), flag);
  });

  it('runs as the sandbox uid and gid', () => {
    assert.deepEqual(named('--uid'), [{ name: '--uid', values: [String(SANDBOX_UID)] }]);
    assert.deepEqual(named('--gid'), [{ name: '--gid', values: [String(SANDBOX_UID)] }]);
  });

  it('clears the environment before setting the few variables Chromium needs', () => {
    const clear = parsed.options.findIndex((o) => o.name === '--clearenv');
    const sets = parsed.options.flatMap((o, i) => (o.name === '--setenv' ? [i] : []));
    assert.ok(
      sets.every((i) => i > clear),
      '--setenv after --clearenv',
    );
    assert.deepEqual(Object.fromEntries(named('--setenv').map((o) => o.values)), {
      HOME: SANDBOX.home,
      TMPDIR: '/tmp',
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      FONTCONFIG_FILE: '/etc/periscope/fonts.conf',
      TZ: hostTimeZone(),
    });
  });

  it("names the host's time zone by a link, so ICU does not compare every zone file at start", () => {
    const zone = hostTimeZone();
    assert.match(zone, /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/);
    assert.ok(existsSync(`/usr/share/zoneinfo/${zone}`), zone);
    assert.deepEqual(named('--symlink').find((o) => o.values[1] === '/etc/localtime')?.values, [
      `/usr/share/zoneinfo/${zone}`,
      '/etc/localtime',
    ]);
    const host = (() => {
      try {
        return readlinkSync('/etc/localtime');
      } catch {
        return null;
      }
    })();
    if (host?.includes('/zoneinfo/')) assert.equal(zone, host.slice(host.indexOf('/zoneinfo/') + 10), 'the same zone as the host');
  });

  it('starts in the sandbox home', () => {
    assert.deepEqual(named('--chdir'), [{ name: '--chdir', values: [SANDBOX.home] }]);
  });
});

describe('bwrapArgs: the mount view', () => {
  it('binds each descriptor to its documented place, writable only for home and downloads', () => {
    assert.deepEqual(
      named('--bind-fd').map((o) => o.values),
      [
        [String(fds.home), SANDBOX.home],
        [String(fds.downloads), SANDBOX.downloads],
      ],
    );
    assert.deepEqual(
      named('--ro-bind-fd').map((o) => o.values),
      [
        [String(fds.uploads), SANDBOX.uploads],
        [String(fds.run), SANDBOX.run],
        [String(fds.chromium), SANDBOX.chromium],
      ],
    );
    assert.deepEqual(
      named('--ro-bind-data').map((o) => o.values),
      [
        [String(fds.passwd), '/etc/passwd'],
        [String(fds.group), '/etc/group'],
        [String(fds.fonts), '/etc/periscope/fonts.conf'],
        [String(fds.policy), '/etc/chromium/policies/managed/periscope.json'],
      ],
    );
  });

  it('uses every descriptor it was given, once', () => {
    const used = parsed.options.filter((o) => /-fd$|-data$/.test(o.name)).map((o) => Number(o.values[0]));
    assert.deepEqual(
      used.sort((a, b) => a - b),
      Object.values(fds).sort((a, b) => a - b),
    );
  });

  it('binds host paths read-only, and only /usr, a few files of /etc and the root links', () => {
    for (const writable of ['--bind', '--bind-try', '--dev-bind', '--dev-bind-try', '--bind-data', '--file'])
      assert.ok(!has(writable), `no ${writable}`);
    const sources = [...named('--ro-bind'), ...named('--ro-bind-try')].map((o) => o.values[0] as string);
    assert.ok(sources.includes('/usr'));
    for (const source of sources) {
      assert.ok(ALLOWED_SOURCES.includes(source), `${source} is not a host path the sandbox may see`);
    }
    for (const o of named('--ro-bind')) assert.equal(o.values[0], o.values[1], 'bound at the same place');
  });

  it("never binds the host's home, root, tmp, var, data or all of /etc", () => {
    const sources = parsed.options.filter((o) => /bind(-try)?$/.test(o.name)).map((o) => o.values[0] as string);
    for (const forbidden of [
      '/',
      '/home',
      '/root',
      '/tmp',
      '/etc',
      '/var',
      '/run',
      '/work',
      '/data',
      '/proc',
      '/sys',
      '/dev',
      '/opt',
      '/srv',
      '/mnt',
      '/media',
      process.cwd(),
      tmpdir(),
    ]) {
      for (const source of sources) {
        assert.ok(
          source !== forbidden && !(forbidden !== '/' && source.startsWith(`${forbidden}/`) && !ALLOWED_SOURCES.includes(source)),
          `${source} exposes ${forbidden}`,
        );
      }
    }
  });

  it('gives the sandbox its own /proc, /dev and /tmp', () => {
    assert.deepEqual(
      named('--proc').map((o) => o.values),
      [['/proc']],
    );
    assert.deepEqual(
      named('--dev').map((o) => o.values),
      [['/dev']],
    );
    assert.deepEqual(
      named('--tmpfs').map((o) => o.values),
      [['/tmp']],
    );
  });

  it('links or binds the root folders as the host has them', () => {
    for (const name of ['bin', 'lib', 'lib64', 'sbin']) {
      const host = `/${name}`;
      const link = named('--symlink').find((o) => o.values[1] === host);
      const bind = named('--ro-bind').find((o) => o.values[1] === host);
      if (!existsSync(host)) {
        assert.ok(!link && !bind, host);
      } else if (lstatSync(host).isSymbolicLink()) {
        assert.deepEqual(link?.values, [`usr/${name}`, host]);
        assert.equal(bind, undefined);
      } else {
        assert.deepEqual(bind?.values, [host, host]);
        assert.equal(link, undefined);
      }
    }
  });

  it('creates only the expected symlinks, none pointing at host paths', () => {
    for (const {
      values: [target, at],
    } of named('--symlink')) {
      const ok =
        (/^usr\/(bin|lib|lib64|sbin)$/.test(target as string) && at === `/${(target as string).slice(4)}`) ||
        (target === '/etc/chromium/policies' && at === '/etc/opt/chrome/policies') ||
        (target === `/usr/share/zoneinfo/${hostTimeZone()}` && at === '/etc/localtime');
      assert.ok(ok, `--symlink ${target} ${at}`);
    }
  });

  it('names only options bubblewrap knows', { skip: existsSync('/usr/bin/bwrap') ? false : 'bwrap is not installed' }, () => {
    const help = execFileSync('/usr/bin/bwrap', ['--help'], { encoding: 'utf8' });
    for (const name of new Set(parsed.options.map((o) => o.name))) assert.match(help, new RegExp(`^\\s+${name}\\b`, 'm'), name);
  });
});

describe('bwrapArgs: the command', () => {
  it('starts the egress relay, then waits to exec Chromium with the given arguments', () => {
    const [sh, c, script, name, binary, ...rest] = parsed.command;
    assert.equal(sh, '/bin/sh');
    assert.equal(c, '-c');
    assert.match(script as string, /socat TCP-LISTEN:3128,bind=127\.0\.0\.1/);
    assert.match(script as string, new RegExp(`UNIX-CONNECT:${SANDBOX.egressSocket}`));
    assert.match(script as string, /3>&- 4>&-/, 'the relay does not hold the DevTools pipe');
    assert.ok((script as string).endsWith(AWAIT_START));
    assert.equal(name, 'periscope-sandbox');
    assert.equal(binary, `${SANDBOX.chromium}/chrome-headless-shell`);
    assert.deepEqual(rest, args);
  });

  it('runs a binary under /usr from where it is', () => {
    const { command } = parse(bwrapArgs({ ...spec, chromium: { underUsr: '/usr/lib/chromium/chromium' } }));
    assert.equal(command[4], '/usr/lib/chromium/chromium');
  });

  it('never tells Chromium to drop its sandbox or listen on a port', () => {
    for (const arg of parsed.command.slice(5)) {
      assert.ok(
        !/^--no-sandbox|^--disable-setuid-sandbox|^--remote-debugging-port|^--remote-debugging-address|^--no-zygote|^--single-process/.test(
          arg,
        ),
        arg,
      );
    }
  });
});

describe('chromiumArgs', () => {
  it('speaks DevTools over the pipe only', () => {
    assert.ok(args.includes('--remote-debugging-pipe'));
    assert.ok(!args.some((a) => a.startsWith('--remote-debugging-port') || a.startsWith('--remote-debugging-address')));
  });

  it("keeps Chromium's own sandbox unless asked not to", () => {
    assert.ok(!args.includes('--no-sandbox'));
    const unsandboxed = chromiumArgs({
      profileDir: '/p',
      proxyUrl: 'http://127.0.0.1:1',
      noSandbox: true,
    });
    assert.ok(unsandboxed.includes('--no-sandbox'));
  });

  it('sends everything, loopback included, through the given proxy', () => {
    assert.ok(args.includes(`--proxy-server=http://127.0.0.1:${SANDBOX.proxyPort}`));
    assert.ok(args.includes('--proxy-bypass-list=<-loopback>'));
    assert.ok(args.includes('--disable-quic'));
    assert.ok(args.includes(`--user-data-dir=${SANDBOX.profile}`));
  });
});

describe('AWAIT_START: a prepared sandbox waits for its start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-await-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let runs = 0;

  /**
   * Run the script as the sandbox does, a shell that writes its arguments to a file standing in for
   * Chromium: what the script said, what the stand-in was given (null if it never ran), the exit code.
   */
  async function run(input: string | null): Promise<{ said: string; ran: string | null; code: number | null }> {
    const file = join(dir, `ran-${++runs}`);
    const standIn = ['/bin/sh', '-c', `printf '%s|' "$@" > '${file}'`, 'stand-in', '--flag'];
    const child = spawn('/bin/sh', ['-c', AWAIT_START, 'periscope-sandbox', ...standIn], { stdio: ['pipe', 'pipe', 'inherit'] });
    const said = text(child.stdout);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(child.exitCode, null, 'it waits');
    if (input === null) child.stdin.end();
    else child.stdin.end(input);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    return { said: await said, ran: existsSync(file) ? readFileSync(file, 'utf8') : null, code };
  }

  it('says it waits, then becomes the command with the window and a blank page, as startArgs says', async () => {
    const { said, ran, code } = await run('1280,633\n');
    assert.equal(code, 0);
    assert.equal(said, 'waiting\n', "Chromium's own output does not reach the pipe");
    assert.equal(ran, ['--flag', ...startArgs({ width: 1280, height: 633 })].map((a) => `${a}|`).join(''));
  });

  it('exits quietly without running the command when its input ends without a line (discarded)', async () => {
    assert.deepEqual(await run(null), { said: 'waiting\n', ran: null, code: 0 });
  });

  it('refuses anything but WIDTH,HEIGHT and runs nothing', async () => {
    for (const bad of ['', '1280', '1280,', ',720', '1280,720,1', '1280x720', '1280,720 --no-sandbox', '$(id),1', '-1,720']) {
      assert.deepEqual(await run(`${bad}\n`), { said: 'waiting\n', ran: null, code: 64 }, JSON.stringify(bad));
    }
  });
});

describe('ROOT_WRAPPER', { skip: existsSync('/bin/bash') ? false : 'bash is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-root-wrapper-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Run the wrapper with extra descriptors at the given child fd numbers; its stdout and exit code. */
  async function run(wrapperArgs: string[], extra: Record<number, string> = {}): Promise<{ out: string; code: number | null }> {
    const opened: number[] = [];
    try {
      const stdio: StdioOptions = ['ignore', 'pipe', 'inherit'];
      for (const [at, file] of Object.entries(extra)) {
        while (stdio.length < Number(at)) stdio.push('ignore');
        const fd = openSync(file, 'r');
        opened.push(fd);
        stdio[Number(at)] = fd;
      }
      const child = spawn('/bin/bash', ['-c', ROOT_WRAPPER, 'x', ...wrapperArgs], { stdio });
      const out = text(child.stdout as NonNullable<typeof child.stdout>);
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      return { out: await out, code };
    } finally {
      for (const fd of opened) closeSync(fd);
    }
  }

  const listFds = ['/bin/sh', '-c', 'ls /proc/self/fd'];
  const fdsOf = (out: string) =>
    out
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .sort((a, b) => a - b);

  it('closes an inherited descriptor that is not kept', async () => {
    const { out, code } = await run(['0 1 2', '--', ...listFds], { 3: '/etc/hostname' });
    assert.equal(code, 0);
    // 0, 1, 2 and the descriptor ls opened for /proc/self/fd (the lowest free one: 3).
    assert.deepEqual(fdsOf(out), [0, 1, 2, 3]);
  });

  it('closes inherited descriptors at higher numbers too', async () => {
    const { out, code } = await run(['0 1 2', '--', ...listFds], { 3: '/etc/hostname', 7: '/etc/hostname', 12: '/etc/hostname' });
    assert.equal(code, 0);
    assert.deepEqual(fdsOf(out), [0, 1, 2, 3]);
  });

  it('shows what the listing would hold had the descriptor stayed open', async () => {
    const marker = join(dir, 'marker');
    execFileSync('/bin/sh', ['-c', `: > '${marker}'`]);
    const { out } = await run(['0 1 2', '--', '/bin/sh', '-c', 'ls -l /proc/self/fd'], { 3: marker, 12: marker });
    assert.doesNotMatch(out, /marker/);
  });

  it('keeps the descriptors it is told to keep, and only those', async () => {
    const marker = join(dir, 'kept');
    execFileSync('/bin/sh', ['-c', `: > '${marker}'`]);
    const { out, code } = await run(['0 1 2 12', '--', '/bin/sh', '-c', 'ls -l /proc/self/fd'], {
      3: '/etc/hostname',
      4: '/etc/hostname',
      12: marker,
      21: '/etc/hostname',
    });
    assert.equal(code, 0);
    const lines = out.split('\n').filter((l) => / -> /.test(l));
    const byFd = Object.fromEntries(
      lines.map((l) => {
        const m = / (\d+) -> (.*)$/.exec(l) as RegExpExecArray;
        return [m[1], m[2]];
      }),
    );
    assert.deepEqual(
      Object.keys(byFd)
        .map(Number)
        .sort((a, b) => a - b),
      [0, 1, 2, 3, 12],
    );
    assert.equal(byFd['12'], marker);
    assert.match(byFd['3'] ?? '', /^\/proc\/\d+\/fd$/, "fd 3 is ls's own listing");
  });

  it('does not mistake a kept number for a prefix of another', async () => {
    const { out } = await run(['0 1 2 1', '--', ...listFds], { 11: '/etc/hostname', 21: '/etc/hostname' });
    assert.deepEqual(fdsOf(out), [0, 1, 2, 3]);
  });

  it('joins each cgroup folder it is given, then execs the command in the same process', async () => {
    const a = mkdtempSync(join(dir, 'cg-a-'));
    const b = mkdtempSync(join(dir, 'cg-b-'));
    const { out, code } = await run(['0 1 2', a, b, '--', '/bin/sh', '-c', 'echo $$']);
    assert.equal(code, 0);
    const pid = out.trim();
    assert.match(pid, /^\d+$/);
    assert.equal(readFileSync(join(a, 'cgroup.procs'), 'utf8').trim(), pid);
    assert.equal(readFileSync(join(b, 'cgroup.procs'), 'utf8').trim(), pid);
  });

  it('exits 125 without running the command when a cgroup cannot be joined', async () => {
    const ran = join(dir, 'ran');
    const { code } = await run(['0 1 2', join(dir, 'no-such-cgroup'), '--', '/bin/sh', '-c', `: > '${ran}'`]);
    assert.equal(code, 125);
    assert.equal(existsSync(ran), false);
  });

  it("passes the command's arguments through untouched", async () => {
    const { out } = await run(['0 1 2', '--', '/usr/bin/printf', '%s|', 'a b', '$HOME', '*', '', '--']);
    assert.equal(out, 'a b|$HOME|*||--|');
  });
});
