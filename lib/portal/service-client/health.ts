/** What the service's public /healthz says: its browsers, and how many pages its search index holds. */
export type ServiceHealth = {
  browsers: { live: number; capacity: number } | null;
  searchPages: number | null;
};

/**
 * Reads a service's /healthz at most once per `maxAgeMs` (concurrent callers share one request);
 * null when the service cannot be reached. Parts a service does not report (another version) are null.
 */
export class ServiceHealthReader {
  readonly #url: string;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #cached: { at: number; value: ServiceHealth | null } | null = null;
  #pending: Promise<ServiceHealth | null> | null = null;

  constructor(serviceUrl: string, maxAgeMs = 5000, now: () => number = Date.now) {
    this.#url = `${serviceUrl}/healthz`;
    this.#maxAgeMs = maxAgeMs;
    this.#now = now;
  }

  async read(): Promise<ServiceHealth | null> {
    if (this.#cached && this.#now() - this.#cached.at < this.#maxAgeMs) return this.#cached.value;
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #fetch(): Promise<ServiceHealth | null> {
    let value: ServiceHealth | null;
    try {
      const res = await fetch(this.#url, { signal: AbortSignal.timeout(3000) });
      const body = (await res.json()) as { browsers?: { live?: unknown; capacity?: unknown }; search?: { pages?: unknown } };
      const { live, capacity } = body.browsers ?? {};
      value = {
        browsers: typeof live === 'number' && typeof capacity === 'number' ? { live, capacity } : null,
        searchPages: typeof body.search?.pages === 'number' ? body.search.pages : null,
      };
    } catch {
      value = null;
    }
    this.#cached = { at: this.#now(), value };
    return value;
  }
}
