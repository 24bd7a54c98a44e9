import { readdir, readFile } from 'node:fs/promises';

/**
 * A host uid (and gid of the same number) per live instance, from a range no account uses. A uid
 * goes back to the pool only once no process of it is left, so no two instances ever share one.
 */
export class UidPool {
  readonly base: number;
  readonly size: number;
  readonly #free: number[];
  readonly #taken = new Set<number>();

  constructor(base: number, size: number) {
    this.base = base;
    this.size = size;
    this.#free = Array.from({ length: size }, (_, i) => base + i);
  }

  get inUse(): number {
    return this.#taken.size;
  }

  take(): number {
    const uid = this.#free.shift();
    if (uid === undefined) throw new Error(`all ${this.size} instance uids are in use`);
    this.#taken.add(uid);
    return uid;
  }

  release(uid: number): void {
    if (!this.#taken.delete(uid)) return;
    this.#free.push(uid);
  }

  includes(uid: number): boolean {
    return uid >= this.base && uid < this.base + this.size;
  }
}

/** Pids of live processes (zombies hold nothing and cannot be killed) whose real or effective uid is in [from, to). */
export async function processesOfUids(from: number, to: number): Promise<{ pid: number; uid: number }[]> {
  const found: { pid: number; uid: number }[] = [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return found;
  }
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        const status = await readFile(`/proc/${e}/status`, 'latin1').catch(() => '');
        const m = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
        if (!m || /^State:\s+[ZX]/m.test(status)) return;
        for (const uid of [Number(m[1]), Number(m[2])]) {
          if (uid >= from && uid < to) {
            found.push({ pid: Number(e), uid });
            return;
          }
        }
      }),
  );
  return found;
}

/** SIGKILL every process of the uids in [from, to) until none is left (bounded); returns how many were killed. */
export async function killUids(from: number, to: number, attempts = 40): Promise<number> {
  let killed = 0;
  for (let i = 0; i < attempts; i++) {
    const left = await processesOfUids(from, to);
    if (left.length === 0) return killed;
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // Gone between the scan and the kill.
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return killed;
}
