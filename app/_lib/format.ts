/** Dates shown the same on server and browser (UTC, fixed format): no hydration differences. */
export function formatDate(ms: number | null): string {
  if (ms === null) return 'Never';
  const d = new Date(ms);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

export type Onlooker = { name: string; control: boolean };

/** "Ann has control and Bob is watching": who would see the browser end. */
export function onlookersText(others: readonly Onlooker[]): string {
  const inControl = others.filter((o) => o.control).map((o) => o.name);
  const watching = others.filter((o) => !o.control).map((o) => o.name);
  const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);
  const parts = [
    ...(inControl.length ? [`${list(inControl)} ${inControl.length === 1 ? 'has' : 'have'} control`] : []),
    ...(watching.length ? [`${list(watching)} ${watching.length === 1 ? 'is' : 'are'} watching`] : []),
  ];
  return parts.join(' and ');
}

/** A length of time as a person reads it: `42 s`, `3 min 5 s`, `2 h 10 min`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

/** A size as a person reads it: `512 B`, `180 KB`, `12.4 MB`, `1.2 GB` (powers of 1024, as the service's limits). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = Math.max(0, bytes);
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[u]}`;
}
