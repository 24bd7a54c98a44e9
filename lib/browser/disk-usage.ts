import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a folder takes on disk: allocated blocks (a sparse file counts only what it holds), links
 * counted as themselves and never followed. Stops counting once past `stopAbove`, so a folder full
 * of junk costs no more to judge than one at the limit. Entries that vanish meanwhile are skipped.
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
        total += stat.blocks * 512;
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // gone since readdir
      }
      if (total > stopAbove) break;
    }
  }
  return total;
}
