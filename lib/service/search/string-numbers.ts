/**
 * Strings numbered in the order first met, found by their text, which may lie within a longer
 * string: a page's terms come as one space-separated string (page-build.ts), and a term met before
 * is found without a string made for it.
 *
 * An open-addressing table, at most half full, whose slots hold a string's FNV-1a hash beside its
 * number: a probe reads one slot and then, only when the hashes agree, the string. The indexer keeps
 * a million strings or more here (a run's terms, a vocabulary's tokens), where each lookup is a few
 * misses of the processor's cache; a Map of a million strings took twice the time or more (decision
 * 0117, and 0126 for the tokenizer's memo), and needs a string made for every key it is asked for.
 */
export class StringNumbers {
  /** Two numbers a slot: the hash, then the string's number + 1 (0: empty). */
  #slots = new Int32Array(2 << 16);
  /** The strings by number. */
  readonly strings: string[] = [];

  get size(): number {
    return this.strings.length;
  }

  /** The number of `text[from, to)` (by default the whole of it), or −1 when it has none. */
  find(text: string, from = 0, to = text.length): number {
    return (this.#slots[this.#probe(text, from, to, hash(text, from, to)) + 1] as number) - 1;
  }

  /** The number of `text[from, to)` (by default the whole of it), a new one if it has none. */
  of(text: string, from = 0, to = text.length): number {
    const h = hash(text, from, to);
    const s = this.#probe(text, from, to, h);
    const known = this.#slots[s + 1] as number;
    if (known > 0) return known - 1;
    const t = this.strings.length;
    this.strings.push(from === 0 && to === text.length ? text : text.slice(from, to));
    this.#slots[s] = h;
    this.#slots[s + 1] = t + 1;
    if (4 * this.strings.length > this.#slots.length) this.#rehash(2 * this.#slots.length);
    return t;
  }

  /** Forgets every string; the table keeps its size, as what fills it next usually fills it as far. */
  clear(): void {
    this.#slots.fill(0);
    this.strings.length = 0;
  }

  /** The slot holding `text[from, to)`, whose hash is `h`, or the empty slot where it would go. */
  #probe(text: string, from: number, to: number, h: number): number {
    const slots = this.#slots;
    const wrap = slots.length - 1;
    let s = (h << 1) & wrap;
    for (let n = slots[s + 1] as number; n > 0; n = slots[s + 1] as number) {
      if (slots[s] === h) {
        const known = this.strings[n - 1] as string;
        if (known.length === to - from && text.startsWith(known, from)) break;
      }
      s = (s + 2) & wrap;
    }
    return s;
  }

  #rehash(length: number): void {
    const slots = new Int32Array(length);
    const wrap = length - 1;
    const old = this.#slots;
    for (let i = 0; i < old.length; i += 2) {
      const n = old[i + 1] as number;
      if (n === 0) continue;
      const h = old[i] as number;
      let s = (h << 1) & wrap;
      while ((slots[s + 1] as number) > 0) s = (s + 2) & wrap;
      slots[s] = h;
      slots[s + 1] = n;
    }
    this.#slots = slots;
  }
}

/** FNV-1a over the UTF-16 code units of `text[from, to)`: the hash the table keeps. */
export function hash(text: string, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}
