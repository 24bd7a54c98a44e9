import {
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';

/**
 * Index generations (decision 0094): a folder that every service node reads and only
 * `npm run index` writes, on storage all nodes share (a network file system, a shared volume).
 *
 *   gen-000007.db       a published generation: a whole index, never written again once published
 *   CURRENT             the name of the generation every node answers from, replaced by a rename
 *   building-000008.db  the generation an indexer is writing (no node opens it)
 *   LOCK                held by the one indexer at work (its host, process and start)
 *
 * A run copies the current generation (a clone where the file system can), adds its pages to the
 * copy, seals it (no write-ahead log: the file alone is the index), renames it into place and
 * then replaces CURRENT. Nodes open generations as immutable SQLite files (no locks, no change
 * checks, safe on read-only and network storage). A generation is removed once the one after it
 * has been current for longer than the grace period, by the next indexer run: nodes have switched
 * away from it by then (they check at least every SEARCH_INDEX_CHECK_SECONDS, at most 300).
 */

export const CURRENT_FILE = 'CURRENT';
const LOCK_FILE = 'LOCK';
const GENERATION = /^gen-(\d{6,})\.db$/;
const BUILDING = /^building-(\d{6,})\.db(-wal|-shm|-journal)?$/;
/** How long a superseded generation is kept for nodes still answering from it. */
export const GRACE_MS = 15 * 60_000;

export type Generation = { name: string; number: number; file: string };

const generationName = (n: number) => `gen-${String(n).padStart(6, '0')}.db`;

/** A SQLite address that opens `file` as immutable: no locks and no change checks (decision 0094). */
export function immutableUri(file: string): string {
  return `${pathToFileURL(file).href}?immutable=1`;
}

/** The generation CURRENT names, or null when none has been published. Throws when CURRENT is not a generation's name. */
export function currentGeneration(dir: string): Generation | null {
  let text: string;
  try {
    text = readFileSync(join(dir, CURRENT_FILE), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const m = GENERATION.exec(text);
  if (!m)
    throw new Error(`${join(dir, CURRENT_FILE)} does not name an index generation (gen-NNNNNN.db): ${JSON.stringify(text.slice(0, 60))}`);
  return { name: text, number: Number(m[1]), file: join(dir, text) };
}

/** The published generations in `dir`, oldest first. */
export function listGenerations(dir: string): Generation[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = GENERATION.exec(name);
      return m ? [{ name, number: Number(m[1]), file: join(dir, name) }] : [];
    })
    .sort((a, b) => a.number - b.number);
}

/**
 * Remove every generation older than the current one whose successor was published more than
 * `graceMs` ago (its file's time is its publication). Returns the names removed.
 */
export function pruneGenerations(dir: string, graceMs = GRACE_MS, now = Date.now()): string[] {
  const current = currentGeneration(dir);
  if (!current) return [];
  const all = listGenerations(dir);
  const removed: string[] = [];
  for (let i = 0; i < all.length - 1; i++) {
    const g = all[i] as Generation;
    const next = all[i + 1] as Generation;
    if (g.number >= current.number || next.number > current.number) continue;
    if (now - statSync(next.file).mtimeMs <= graceMs) continue;
    rmSync(g.file, { force: true });
    removed.push(g.name);
  }
  return removed;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the folder's LOCK, or throw saying who holds it. A lock left by a dead process of this host is taken over. */
function lock(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const mine = JSON.stringify({ host: hostname(), pid: process.pid, since: new Date().toISOString() });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, mine, { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
    let holder: { host?: string; pid?: number; since?: string } = {};
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as typeof holder;
    } catch {
      // unreadable: reported below as held by someone unknown
    }
    if (holder.host === hostname() && typeof holder.pid === 'number' && !alive(holder.pid)) {
      rmSync(path, { force: true });
      continue;
    }
    throw new Error(
      `another npm run index is building a generation in ${dir} (host ${holder.host ?? '?'}, process ${holder.pid ?? '?'}, since ${holder.since ?? '?'}); ` +
        `if it is gone, remove ${path}`,
    );
  }
}

/**
 * One indexer run's new generation: `begin` takes the lock and prepares `file` (a copy of the
 * current generation, or of `from`, or nothing for the first), the writer adds pages to it, and
 * `publish` makes it current; `abandon` drops it.
 */
export class GenerationBuilder {
  readonly dir: string;
  readonly number: number;
  /** The file to write the new generation into. */
  readonly file: string;
  /** The generation it starts from, or null. */
  readonly base: string | null;
  readonly #unlock: () => void;
  readonly #graceMs: number;
  #done = false;

  private constructor(dir: string, number: number, base: string | null, unlock: () => void, graceMs: number) {
    this.dir = dir;
    this.number = number;
    this.file = join(dir, `building-${String(number).padStart(6, '0')}.db`);
    this.base = base;
    this.#unlock = unlock;
    this.#graceMs = graceMs;
  }

  /** `from`: an index file (a live one too: it is read as one snapshot) to start from instead of the current generation. */
  static begin(dir: string, opts: { from?: string; graceMs?: number } = {}): GenerationBuilder {
    mkdirSync(dir, { recursive: true });
    const unlock = lock(dir);
    try {
      // What a run that died left half-built: ours to remove, since we hold the lock.
      for (const name of readdirSync(dir)) if (BUILDING.test(name)) rmSync(join(dir, name), { force: true });
      const graceMs = opts.graceMs ?? GRACE_MS;
      pruneGenerations(dir, graceMs);
      const current = currentGeneration(dir);
      const number = Math.max(current?.number ?? 0, ...listGenerations(dir).map((g) => g.number)) + 1;
      const builder = new GenerationBuilder(dir, number, opts.from ?? current?.name ?? null, unlock, graceMs);
      if (opts.from) {
        const source = new DatabaseSync(opts.from, { readOnly: true });
        try {
          source.prepare('VACUUM INTO ?').run(builder.file);
        } finally {
          source.close();
        }
      } else if (current) copyFileSync(current.file, builder.file, constants.COPYFILE_FICLONE);
      return builder;
    } catch (err) {
      unlock();
      throw err;
    }
  }

  /**
   * Seal the new generation and make it current: no write-ahead log left (the file alone is the
   * index), flushed to disk, renamed to its generation name, then named in CURRENT (written beside
   * and renamed over it, so a reader sees the old name or the new one, never part of either).
   * Old generations past their grace are removed. Call after the writer is closed.
   */
  publish(now = Date.now()): { generation: Generation; removed: string[] } {
    if (this.#done) throw new Error('this generation was already published or abandoned');
    const db = new DatabaseSync(this.file);
    try {
      db.exec('PRAGMA journal_mode = DELETE');
    } finally {
      db.close();
    }
    fsyncPath(this.file);
    const name = generationName(this.number);
    const file = join(this.dir, name);
    renameSync(this.file, file);
    utimesSync(file, now / 1000, now / 1000);
    const next = join(this.dir, `${CURRENT_FILE}.next`);
    writeFileSync(next, `${name}\n`);
    fsyncPath(next);
    renameSync(next, join(this.dir, CURRENT_FILE));
    fsyncPath(this.dir);
    this.#done = true;
    try {
      return { generation: { name, number: this.number, file }, removed: pruneGenerations(this.dir, this.#graceMs, now) };
    } finally {
      this.#unlock();
    }
  }

  /** Drop the new generation (a failed run): the current one stays. */
  abandon(): void {
    if (this.#done) return;
    this.#done = true;
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(this.file + suffix, { force: true });
    this.#unlock();
  }
}
