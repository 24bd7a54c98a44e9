/** Where `value` is in an ascending list of numbers (a posting list's page ids, a word's
 * definitions), by binary search, or -1. */
export function indexIn(list: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid] as number;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The first place of `list` (ascending) from `from` on whose value is at least `value`, or the
 * list's length: by galloping (steps that double, then a binary search), so that walking a short
 * list's values through a long one costs a few steps each, not the long one's length. */
export function seek(list: ArrayLike<number>, value: number, from: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < list.length && (list[hi] as number) < value) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, list.length);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The values in every one of `lists` (ascending, each value once in a list), ascending: the
 * shortest walked, looked for in the others (seek). */
export function intersectSorted(lists: readonly Uint32Array[]): Uint32Array {
  if (!lists.length) return new Uint32Array(0);
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let out = sorted[0] as Uint32Array;
  for (let j = 1; j < sorted.length && out.length; j++) {
    const next = new Uint32Array(out.length);
    out = next.subarray(0, intersectInto(out, sorted[j] as Uint32Array, next));
  }
  return out;
}

/** Writes the values `short` and `long` (ascending, each value once) share into `out` from its
 * start, ascending, and says how many: `short`'s looked for in `long` (seek). */
export function intersectInto(short: ArrayLike<number>, long: ArrayLike<number>, out: { [i: number]: number }): number {
  let n = 0;
  for (let i = 0, at = 0; i < short.length && at < long.length; i++) {
    const v = short[i] as number;
    at = seek(long, v, at);
    if (long[at] === v) out[n++] = v;
  }
  return n;
}

/** How many values two ascending lists (each value once) share: the shorter looked for in the
 * longer (seek). */
export function sharedCount(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let n = 0;
  for (let i = 0, at = 0; i < short.length && at < long.length; i++) {
    const v = short[i] as number;
    at = seek(long, v, at);
    if (long[at] === v) n++;
  }
  return n;
}
