import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What every entry costs at least, whatever it holds: an empty file still takes an inode, so a
 * tenant making millions of them reaches its limit instead of the host's inode table, and a walk
 * never looks at more than `stopAbove / ENTRY_MIN_BYTES` entries.
 */
export const ENTRY_MIN_BYTES = 4096;

/**
 * What a folder takes on disk: allocated blocks (a sparse file counts only what it holds), at
 * least ENTRY_MIN_BYTES an entry, links counted as themselves and never followed. Stops counting
 * once past `stopAbove`, so a folder full of junk costs no more to judge than one at the limit.
 * Entries that vanish meanwhile are skipped.
 */
export async function diskBytes(dir: string, stopAbove = Number.POSITIVE_INFINITY): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length && total <= stopAbove) {
    const folder = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      try {
        const stat = await lstat(path);
        total += Math.max(stat.blocks * 512, ENTRY_MIN_BYTES);
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // gone since readdir
      }
      if (total > stopAbove) break;
    }
  }
  return total;
}
