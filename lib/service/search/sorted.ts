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
