import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** SIGKILL every process whose command line mentions `needle` (Linux /proc). Returns how many. */
export async function killProcessesMentioning(needle: string): Promise<number> {
  const pids = await findProcessesMentioning(needle);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the scan and the kill.
    }
  }
  return pids.length;
}

export async function findProcessesMentioning(needle: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    entries.filter((e) => /^\d+$/.test(e)).map(async (e) => {
      const pid = Number(e);
      if (pid === process.pid) return;
      try {
        const cmdline = await readFile(`/proc/${e}/cmdline`, 'latin1');
        if (cmdline.includes(needle)) found.push(pid);
      } catch {
        // Exited or not ours to read.
      }
    }),
  );
  return found;
}

/** Kill every Chromium still using a profile under `profilesDir` and remove all those profiles. */
export async function reapStaleBrowsers(profilesDir: string): Promise<{ processes: number; profiles: number }> {
  const processes = await killProcessesMentioning(profilesDir);
  let profiles: string[];
  try {
    profiles = await readdir(profilesDir);
  } catch {
    return { processes, profiles: 0 };
  }
  if (processes) await new Promise((r) => setTimeout(r, 100));
  await Promise.all(profiles.map((p) => rm(join(profilesDir, p), { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })));
  return { processes, profiles: profiles.length };
}
