/**
 * One progress bar through the named phases of a long job (`npm run index`: reading pages, indexing
 * text, writing postings, ordering words, ranking pages, optimising). The bar fills once from 0 to
 * 100 %, each phase taking its share, and names the phase it is in, what that phase has done and
 * the time since the start.
 *
 * On a terminal it is one line redrawn in place, at most ten times a second. Anywhere else (a CI
 * log, a pipe) a line says when each phase ends, with what it did, how long it took, how many
 * cores the process kept busy meanwhile (its CPU time over the phase's: short of the machine's
 * cores, a phase waits on something else) and the most memory the process has held so far (the
 * first phase whose line shows a figure is the one that reached it), and a line now and then tells
 * how far a long phase is.
 */

/** Where the bar goes: stderr, usually. */
export type BarOutput = { write(text: string): unknown; isTTY?: boolean; columns?: number };

/** A phase: its name as shown, and its share of the whole job (in any unit: seconds it usually takes). */
export type Phase = { name: string; weight: number };

export type PhaseBarOptions = {
  /** No bar and no phase lines; log() still writes. */
  quiet?: boolean;
  /** The clock, in milliseconds (for tests). */
  now?: () => number;
  /** The CPU time the process has used, all its threads, in microseconds (for tests). */
  cpu?: () => number;
  /** The most memory the process has held so far, resident, in bytes (for tests). */
  maxMemory?: () => number;
  /** Least time between two redraws on a terminal. */
  redrawMs?: number;
  /** Least time between two progress lines elsewhere. */
  lineMs?: number;
};

const WIDTH = 24;
/** Back to the start of the line, and clear it. */
const CLEAR_LINE = '\r\x1b[2K';

/** 75 000 ms -> `1:15`; an hour or more -> `1:02:03`. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mm = String(Math.floor(s / 60) % 60);
  const ss = String(s % 60).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

export class PhaseBar {
  readonly #out: BarOutput;
  readonly #phases: readonly Phase[];
  readonly #total: number;
  readonly #quiet: boolean;
  readonly #tty: boolean;
  readonly #now: () => number;
  readonly #cpu: () => number;
  readonly #maxMemory: () => number;
  readonly #every: number;
  /** The phase in progress (-1: none yet), what it has done, and when it started. */
  #at = -1;
  #fraction: number | null = null;
  #detail = '';
  #phaseStart = 0;
  #phaseCpu = 0;
  readonly #start: number;
  #drawn = 0;
  /** Whether a bar is on the terminal's last line. */
  #shown = false;

  constructor(out: BarOutput, phases: readonly Phase[], options: PhaseBarOptions = {}) {
    if (!phases.length || phases.some((p) => !(p.weight >= 0))) throw new Error('a PhaseBar needs phases of weight 0 or more');
    this.#out = out;
    this.#phases = phases;
    this.#total = phases.reduce((sum, p) => sum + p.weight, 0) || 1;
    this.#quiet = !!options.quiet;
    this.#tty = !!out.isTTY;
    this.#now = options.now ?? (() => performance.now());
    this.#cpu =
      options.cpu ??
      (() => {
        const used = process.cpuUsage();
        return used.user + used.system;
      });
    this.#maxMemory = options.maxMemory ?? (() => process.resourceUsage().maxRSS * 1024);
    this.#every = this.#tty ? (options.redrawMs ?? 100) : (options.lineMs ?? 10_000);
    this.#start = this.#now();
  }

  /**
   * Where `phase` is: the `fraction` of it done (null: not known) and what it has done, in words
   * (`1200/5058 pages`). Naming a later phase ends the one in progress; an earlier one is ignored.
   */
  update(phase: string, fraction: number | null, detail: string): void {
    const at = this.#phases.findIndex((p) => p.name === phase);
    if (at < 0) throw new Error(`unknown phase ${JSON.stringify(phase)}`);
    if (this.#quiet || at < this.#at) return;
    const now = this.#now();
    const entered = at > this.#at;
    if (entered) {
      this.#endPhase(now);
      this.#at = at;
      this.#phaseStart = now;
      this.#phaseCpu = this.#cpu();
    }
    this.#fraction = fraction === null ? null : Math.min(1, Math.max(0, fraction));
    this.#detail = detail;
    // Elsewhere than a terminal, a phase's start is no news: its end line will tell.
    if (entered && !this.#tty) this.#drawn = now;
    else if (entered || now - this.#drawn >= this.#every) this.#draw(now);
  }

  /** A message on its own line (above the bar, on a terminal). */
  log(message: string): void {
    this.#clear();
    this.#out.write(`${message}\n`);
    if (this.#tty && this.#at >= 0 && !this.#quiet) this.#draw(this.#now());
  }

  /** Ends the phase in progress and takes the bar away. */
  done(): void {
    if (this.#quiet) return;
    this.#endPhase(this.#now());
    this.#clear();
    this.#at = this.#phases.length;
  }

  /** The whole job's fraction done. */
  #overall(): number {
    let done = 0;
    for (let i = 0; i < this.#at; i++) done += (this.#phases[i] as Phase).weight;
    done += (this.#phases[this.#at] as Phase).weight * (this.#fraction ?? 0);
    return Math.min(1, done / this.#total);
  }

  #line(now: number): string {
    const phase = this.#phases[this.#at] as Phase;
    const overall = this.#overall();
    const pct = `${String(Math.floor(overall * 100)).padStart(3)}%`;
    const where = `${pct} ${clock(now - this.#start)}  ${phase.name} (${this.#at + 1}/${this.#phases.length})`;
    const line = this.#detail ? `${where}  ${this.#detail}` : where;
    if (!this.#tty) return line;
    const filled = Math.floor(overall * WIDTH);
    return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${line}`;
  }

  #draw(now: number): void {
    this.#drawn = now;
    const line = this.#line(now);
    if (!this.#tty) {
      this.#out.write(`${line}\n`);
      return;
    }
    this.#out.write(`${CLEAR_LINE}${line.slice(0, Math.max(20, (this.#out.columns || 100) - 1))}`);
    this.#shown = true;
  }

  #clear(): void {
    if (!this.#shown) return;
    this.#out.write(CLEAR_LINE);
    this.#shown = false;
  }

  /** The phase in progress is over: elsewhere than a terminal, a line says what it did. */
  #endPhase(now: number): void {
    if (this.#tty || this.#at < 0 || this.#at >= this.#phases.length) return;
    const phase = this.#phases[this.#at] as Phase;
    const ms = now - this.#phaseStart;
    const cores = ms > 0 ? `, ${((this.#cpu() - this.#phaseCpu) / 1000 / ms).toFixed(1)} cores` : '';
    const memory = `, at most ${Math.round(this.#maxMemory() / 2 ** 20)} MB so far`;
    this.#out.write(`${phase.name}: ${this.#detail ? `${this.#detail}, ` : ''}${(ms / 1000).toFixed(1)} s${cores}${memory}\n`);
  }
}
