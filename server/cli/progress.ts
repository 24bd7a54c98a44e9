/** A one-line progress bar on a terminal; on anything else, a line now and then. */
export class ProgressBar {
  readonly #out: NodeJS.WriteStream;
  readonly #enabled: boolean;
  readonly #tty: boolean;
  #last = 0;
  #shown = false;
  #lastLine = '';

  constructor(out: NodeJS.WriteStream, enabled: boolean) {
    this.#out = out;
    this.#enabled = enabled;
    this.#tty = !!out.isTTY;
  }

  update(fraction: number | null, label: string): void {
    if (!this.#enabled) return;
    const now = Date.now();
    if (now - this.#last < (this.#tty ? 100 : 2000)) return;
    this.#last = now;
    const width = 30;
    const bar =
      fraction === null
        ? ''
        : `[${'#'.repeat(Math.round(Math.min(1, fraction) * width)).padEnd(width, '.')}] ${(Math.min(1, fraction) * 100).toFixed(0).padStart(3)}% `;
    const line = `${bar}${label}`;
    if (this.#tty) {
      this.#out.write(`\r\x1b[2K${line.slice(0, (this.#out.columns || 100) - 1)}`);
      this.#shown = true;
    } else if (line !== this.#lastLine) {
      this.#out.write(`${line}\n`);
    }
    this.#lastLine = line;
  }

  /** Print a message above the bar. */
  log(message: string): void {
    if (this.#tty && this.#shown) this.#out.write('\r\x1b[2K');
    this.#out.write(`${message}\n`);
    this.#last = 0;
  }

  done(): void {
    if (this.#tty && this.#shown) this.#out.write('\r\x1b[2K');
    this.#shown = false;
  }
}
