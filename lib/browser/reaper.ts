import { readdir, readFile } from 'node:fs/promises';

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
