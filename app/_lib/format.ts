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
