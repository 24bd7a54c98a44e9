/**
 * What a person sees in a terminal: the processes log JSON lines (pino), and `npm start` turns them
 * into short readable lines and prints one banner once both processes listen. When stdout is not a
 * terminal (or LOG_FORMAT=json), the JSON lines pass through untouched for a log collector.
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'trace', color: '90' },
  20: { name: 'debug', color: '90' },
  30: { name: 'info', color: '36' },
  40: { name: 'warn', color: '33' },
  50: { name: 'error', color: '31' },
  60: { name: 'fatal', color: '31' },
};

const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

const paint = (color: boolean, code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);

const valueText = (v: unknown): string => {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
};

export type LogRecord = Record<string, unknown> & { level?: number; time?: number; name?: string; msg?: string };

/** The record a line holds, or null when the line is not one of our JSON log lines. */
export function parseLogLine(line: string): LogRecord | null {
  if (!line.startsWith('{')) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as LogRecord).level === 'number' ? (v as LogRecord) : null;
  } catch {
    return null;
  }
}

/** One readable line: time, process, level, message, then the record's own fields as key=value. */
export function prettyRecord(r: LogRecord, color: boolean): string {
  const time = new Date(typeof r.time === 'number' ? r.time : Date.now()).toTimeString().slice(0, 8);
  const level = LEVELS[r.level ?? 30] ?? { name: String(r.level), color: '0' };
  const fields = Object.entries(r)
    .filter(([k, v]) => !OMIT.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${valueText(v)}`)
    .join(' ');
  const head = `${paint(color, '90', time)} ${String(r.name ?? '').padEnd(7)} ${paint(color, level.color, level.name.padEnd(5))}`;
  return `${head} ${r.msg ?? ''}${fields ? `  ${paint(color, '90', fields)}` : ''}`;
}

export type StartFacts = { portalUrl: string; serviceUrl: string; dataDir: string | null; indexEmpty: boolean };

/** The banner `npm start` prints once the service and the portal both listen. */
export function startBanner(f: StartFacts, color: boolean): string {
  const bold = (t: string) => paint(color, '1', t);
  const rows = [
    ['Portal', f.portalUrl, 'open it, sign up (the first account is yours), create a team and a key'],
    ['Service', f.serviceUrl, '/start, /json/version and /v0/search for your own clients'],
    ...(f.dataDir ? [['Data', f.dataDir, 'keys, accounts and the search index']] : []),
  ];
  const width = Math.max(...rows.map((r) => r[1]!.length));
  const lines = [
    '',
    `  ${bold('Periscope is running')}`,
    ...rows.map(([label, value, note]) => `    ${label!.padEnd(8)} ${bold(value!.padEnd(width))}   ${paint(color, '90', note!)}`),
    '',
    `  Next: a key for your own code: ${bold('npm run keys -- create --name me')} (README, "Then create an API key")`,
    ...(f.indexEmpty
      ? [`        the search index is empty: ${bold('npm run index -- FILE.warc.gz')} (README, "Filling the search index")`]
      : []),
    '  Stop with Ctrl+C. Logs follow.',
    '',
  ];
  return lines.join('\n');
}

/**
 * Reads the processes' log records and says when the banner is due: once both have said they listen.
 * Returns the facts at that moment, once; null before and after.
 */
export class StartWatch {
  #portal: string | null = null;
  #service: string | null = null;
  #dataDir: string | null = null;
  #indexEmpty = false;
  #done = false;

  see(r: LogRecord): StartFacts | null {
    if (r.msg === 'service listening') {
      this.#service = String(r.publicUrl ?? r.url ?? '');
      this.#dataDir = typeof r.dataDir === 'string' ? r.dataDir : null;
    }
    if (r.msg === 'portal listening') this.#portal = String(r.publicUrl ?? r.url ?? '');
    if (typeof r.msg === 'string' && r.msg.startsWith('search index is empty')) this.#indexEmpty = true;
    if (this.#done || this.#portal === null || this.#service === null) return null;
    this.#done = true;
    return { portalUrl: this.#portal, serviceUrl: this.#service, dataDir: this.#dataDir, indexEmpty: this.#indexEmpty };
  }
}
