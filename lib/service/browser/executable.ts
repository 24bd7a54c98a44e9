import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '#shared/config-schema.ts';

export type ChromiumExecutable = {
  /** The binary to run on the host. */
  path: string;
  /** Where it came from: the operator's CHROME_PATH, or the headless shell that npm installed. */
  source: 'CHROME_PATH' | 'npm';
  /** The folder that holds the binary and what it loads beside it (mounted read-only into each sandbox). */
  installDir: string;
  /** Fonts that ship with the binary, if any. */
  fontsDir: string | null;
};

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Distribution wrappers (shell scripts) and the binaries they start; the sandbox runs the binary itself. */
const WRAPPED: Record<string, string> = {
  '/usr/bin/chromium': '/usr/lib/chromium/chromium',
  '/usr/bin/chromium-browser': '/usr/lib/chromium/chromium',
  '/usr/bin/google-chrome': '/opt/google/chrome/chrome',
  '/usr/bin/google-chrome-stable': '/opt/google/chrome/chrome',
};

/**
 * Which Chromium to run. By default the headless shell that npm installs with @sparticuz/chromium:
 * measured here it starts in a quarter of the time of Debian's full Chromium and idles in less
 * than half the memory (README, "Which Chromium runs"). CHROME_PATH selects another build; a
 * distribution's wrapper script is resolved to the binary it starts.
 */
/** Where the headless shell is unpacked: beside the installed packages, shared by every service of this checkout. */
export const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/periscope', import.meta.url));

export async function resolveChromium(chromePath: string | undefined, cacheDir = DEFAULT_CACHE_DIR): Promise<ChromiumExecutable> {
  if (chromePath) {
    const wrapped = WRAPPED[resolve(chromePath)];
    const path = wrapped && isExecutable(wrapped) && isScript(chromePath) ? wrapped : chromePath;
    if (!isExecutable(path)) throw new ConfigError([`CHROME_PATH: ${chromePath} is not an executable file`]);
    if (isScript(path)) throw new ConfigError([`CHROME_PATH: ${chromePath} is a script; point it at the Chromium binary itself`]);
    return { path, source: 'CHROME_PATH', installDir: dirname(path), fontsDir: null };
  }
  const installDir = await stageHeadlessShell(cacheDir);
  return { path: join(installDir, 'chromium'), source: 'npm', installDir, fontsDir: join(installDir, 'fonts') };
}

function isScript(path: string): boolean {
  try {
    return readFileSync(path).subarray(0, 2).toString('latin1') === '#!';
  } catch {
    return false;
  }
}

/**
 * Unpack @sparticuz/chromium's headless shell once into `cacheDir/headless-shell-<version>`, readable
 * and executable by every user (instances run under their own uids). The package unpacks into the
 * temp folder it is given; it is given a private one, moved into place when complete.
 */
async function stageHeadlessShell(cacheDir: string): Promise<string> {
  // The package's entry is build/index.js; its manifest and archives sit one folder up.
  const packageDir = dirname(dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))));
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = join(cacheDir, `headless-shell-${version}`);
  if (existsSync(join(target, 'chromium'))) return target;
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  const scratch = `${target}.${process.pid}.partial`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  const savedTmp = process.env.TMPDIR;
  try {
    process.env.TMPDIR = scratch;
    const { default: packaged } = await import('@sparticuz/chromium');
    await packaged.executablePath(join(packageDir, 'bin'));
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  await makeReadable(scratch);
  await rename(scratch, target).catch(async (err: NodeJS.ErrnoException) => {
    // Another process staged it meanwhile.
    await rm(scratch, { recursive: true, force: true });
    if (!existsSync(join(target, 'chromium'))) throw err;
  });
  return target;
}

async function makeReadable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeReadable(path);
    else if (entry.isFile())
      await chmod(path, entry.name === 'chromium' || entry.name.endsWith('.so') || entry.name.endsWith('.so.1') ? 0o755 : 0o644);
  }
}
