/** Launches failing one after another, with none started between them, that make a node unhealthy. */
export const FAILING_AFTER = 3;

/**
 * Whether this node can start browsers, as its launches show: after FAILING_AFTER failures in a row
 * (a host that changed under the service, a full disk, a Chromium that no longer starts) it is
 * failing, with the last failure's reason, until a launch succeeds. /healthz answers 503 with the
 * reason, and /start says it instead of asking to try again.
 */
export class LaunchHealth {
  #failures = 0;
  #lastError = '';

  succeeded(): void {
    this.#failures = 0;
    this.#lastError = '';
  }

  failed(err: unknown): void {
    this.#failures++;
    const message = err instanceof Error ? err.message : String(err);
    // One line, bounded: it is shown on /healthz and in /start's refusals.
    this.#lastError = message.replaceAll(/\s+/g, ' ').trim().slice(0, 500);
  }

  /** Why launches keep failing, or null while they do not. */
  get problem(): string | null {
    if (this.#failures < FAILING_AFTER) return null;
    return `the last ${this.#failures} browser launches failed; the last one: ${this.#lastError}`;
  }
}
