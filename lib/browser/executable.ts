import { accessSync, constants } from 'node:fs';
import { ConfigError } from '../config/schema.ts';

const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export type ChromiumExecutable = { path: string; source: 'CHROME_PATH' | 'system' | 'npm' };

/**
 * Which Chromium to run: CHROME_PATH when set, else a system Chromium, else the build that
 * npm installed with @sparticuz/chromium (unpacked once into the temp folder), so that a fresh
 * machine needs nothing beyond `npm install`.
 */
export async function resolveChromium(chromePath: string | undefined): Promise<ChromiumExecutable> {
  if (chromePath) {
    if (!isExecutable(chromePath)) throw new ConfigError([`CHROME_PATH: ${chromePath} is not an executable file`]);
    return { path: chromePath, source: 'CHROME_PATH' };
  }
  const system = SYSTEM_CANDIDATES.find(isExecutable);
  if (system) return { path: system, source: 'system' };
  const { default: packaged } = await import('@sparticuz/chromium');
  return { path: await packaged.executablePath(), source: 'npm' };
}
