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
