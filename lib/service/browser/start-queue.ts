/**
 * Clients waiting for room to start a browser (`/start?queue=SECONDS`, docs/api.md, section 1):
 * first come first served within a key, and turns taken round the keys, so that one key's burst
 * does not starve another key's single request. The fleet asks `dispatch` to hand out turns
 * whenever room may have come (a browser ending, a start failing, a tick for room on other nodes).
 */
type Waiter<K> = {
  key: K;
  since: number;
  granted: () => void;
  failed: (err: unknown) => void;
};

export class StartQueue<K extends { id: string }> {
  /** Waiters by key id; a Map keeps insertion order, and a served key goes to the back: round robin. */
  readonly #byKey = new Map<string, Waiter<K>[]>();
  #size = 0;

  /** Clients waiting now. */
  get size(): number {
    return this.#size;
  }

  /** How long the longest waiter has waited, in ms (0 when none waits). */
  oldestWaitMs(now = Date.now()): number {
    let oldest = now;
    for (const line of this.#byKey.values()) if (line[0] && line[0].since < oldest) oldest = line[0].since;
    return now - oldest;
  }

  /**
   * Wait for a turn until `deadline` (epoch ms). Resolves once `dispatch` granted one (the grant
   * has already taken the room); rejects with `expired()` at the deadline, or with the signal's
   * reason when the client goes away, leaving the queue as it was for the others.
   */
  wait(key: K, deadline: number, signal: AbortSignal | undefined, expired: () => unknown): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const since = Date.now();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter<K> = {
        key,
        since,
        granted: () => {
          done();
          resolve(Date.now() - since);
        },
        failed: (err) => {
          done();
          reject(err);
        },
      };
      const onAbort = () => this.#remove(waiter) && waiter.failed(signal?.reason);
      const timer = setTimeout(() => this.#remove(waiter) && waiter.failed(expired()), Math.max(0, deadline - since));
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      const line = this.#byKey.get(key.id);
      if (line) line.push(waiter);
      else this.#byKey.set(key.id, [waiter]);
      this.#size++;
    });
  }

  /** Take a waiter out of its line; false when it was no longer in it (granted, or gone). */
  #remove(waiter: Waiter<K>): boolean {
    const line = this.#byKey.get(waiter.key.id);
    const at = line?.indexOf(waiter) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    this.#size--;
    if (line.length === 0) this.#byKey.delete(waiter.key.id);
    return true;
  }

  /**
   * Hand out turns while `take(key)` finds room for the next waiter (and takes it), going round
   * the keys: each key's first waiter in turn, a served key moving to the back of the round.
   */
  dispatch(take: (key: K) => boolean): void {
    for (let served = true; served && this.#size > 0;) {
      served = false;
      for (const [id, line] of this.#byKey) {
        const first = line[0];
        if (!first || !take(first.key)) continue;
        line.shift();
        this.#size--;
        this.#byKey.delete(id);
        if (line.length) this.#byKey.set(id, line);
        first.granted();
        served = true;
        break;
      }
    }
  }

  /** Refuse every waiter (the service is stopping). */
  clear(err: () => unknown): void {
    const all = [...this.#byKey.values()].flat();
    this.#byKey.clear();
    this.#size = 0;
    for (const w of all) w.failed(err());
  }
}
