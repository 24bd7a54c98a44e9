/** What the service's public /healthz says about its browsers. */
export type ServiceHealth = { live: number; capacity: number };

/**
 * Reads the service's /healthz at most once per `maxAgeMs`; null when the service cannot be
 * reached or does not say (a remote deployment of another version).
 */
export class ServiceHealthReader {
  readonly #url: string;
  readonly #maxAgeMs: number;
  #cached: { at: number; value: ServiceHealth | null } | null = null;
  #pending: Promise<ServiceHealth | null> | null = null;

  constructor(serviceUrl: string, maxAgeMs = 5000) {
    this.#url = `${serviceUrl}/healthz`;
    this.#maxAgeMs = maxAgeMs;
  }

  async read(): Promise<ServiceHealth | null> {
    if (this.#cached && Date.now() - this.#cached.at < this.#maxAgeMs) return this.#cached.value;
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #fetch(): Promise<ServiceHealth | null> {
    let value: ServiceHealth | null = null;
    try {
      const res = await fetch(this.#url, { signal: AbortSignal.timeout(2000) });
      const body = (await res.json()) as { browsers?: { live?: unknown; capacity?: unknown } };
      const { live, capacity } = body.browsers ?? {};
      if (typeof live === 'number' && typeof capacity === 'number') value = { live, capacity };
    } catch {
      value = null;
    }
    this.#cached = { at: Date.now(), value };
    return value;
  }
}
