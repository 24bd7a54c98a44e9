import {
  BadGatewayError,
  ConnectionError,
  errorFromAnswer,
  PeriscopeError,
  RateLimitError,
  TimeoutError,
  UnavailableError,
} from './errors.ts';

/** What every call accepts: cancellation, its own time limit, and whether refusals are retried. */
export type CallOptions = {
  /** Cancels the call; it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time limit of each attempt, in milliseconds (the client's `timeoutMs` when absent). */
  timeoutMs?: number;
  /** Retries of a 429, 502 or 503 answer (the client's `maxRetries` when absent); 0 turns them off. */
  maxRetries?: number;
};

export type HttpConfig = {
  baseUrl: URL;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  /** A retry that would have to wait longer than this is not made: the refusal is thrown at once. */
  maxRetryDelayMs: number;
  userAgent: string;
};

type Request = {
  method: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | Blob;
};

/** The service's HTTP interface: one place for the key, time limits, retries and error mapping. */
export class Http {
  readonly #cfg: HttpConfig;

  constructor(cfg: HttpConfig) {
    this.#cfg = cfg;
  }

  get baseUrl(): URL {
    return this.#cfg.baseUrl;
  }

  get apiKey(): string {
    return this.#cfg.apiKey;
  }

  get timeoutMs(): number {
    return this.#cfg.timeoutMs;
  }

  /** An address of the service: `path` resolved against the base URL (which may carry a path of its own). */
  url(path: string, query: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(this.#cfg.baseUrl);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** The headers every call sends. */
  authHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.#cfg.apiKey}`, 'User-Agent': this.#cfg.userAgent };
  }

  /** Make the request and parse its JSON answer. */
  async json<T>(req: Request, call: CallOptions = {}): Promise<T> {
    return this.send(req, call, async (res) => (await res.json()) as T);
  }

  /** Make the request and return its body's bytes. */
  async bytes(req: Request, call: CallOptions = {}): Promise<Uint8Array> {
    return this.send(req, call, async (res) => new Uint8Array(await res.arrayBuffer()));
  }

  /** Make a request whose answer has no body worth reading (204). */
  async empty(req: Request, call: CallOptions = {}): Promise<void> {
    await this.send(req, call, async (res) => void (await res.arrayBuffer()));
  }

  /** Make the request, retrying refusals that say when to, and hand a successful answer to `read`. */
  async send<T>(req: Request, call: CallOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const maxRetries = call.maxRetries ?? this.#cfg.maxRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(req, call, read);
      } catch (err) {
        const delay = attempt < maxRetries ? retryDelayMs(err, attempt) : undefined;
        if (delay === undefined || delay > this.#cfg.maxRetryDelayMs) throw err;
        await sleep(delay, call.signal);
      }
    }
  }

  async #attempt<T>(req: Request, call: CallOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const limit = deadline(call.signal, call.timeoutMs ?? this.#cfg.timeoutMs);
    try {
      let res: Response;
      try {
        res = await fetch(this.url(req.path, req.query), {
          method: req.method,
          headers: { ...this.authHeaders(), ...req.headers },
          body: req.body,
          signal: limit.signal,
        });
      } catch (err) {
        throw limit.explain(err, `${req.method} ${req.path}`);
      }
      try {
        if (!res.ok) throw errorFromAnswer(res.status, await answerBody(res), res.headers.get('retry-after'));
        return await read(res);
      } catch (err) {
        throw err instanceof PeriscopeError ? err : limit.explain(err, `${req.method} ${req.path}`);
      }
    } finally {
      limit.done();
    }
  }
}

/** How long to wait before retrying after `err`, or undefined when it is not worth retrying. */
export function retryDelayMs(err: unknown, attempt: number): number | undefined {
  if (!(err instanceof RateLimitError || err instanceof BadGatewayError || err instanceof UnavailableError)) return undefined;
  if (err.retryAfter !== undefined) return err.retryAfter * 1000;
  // No Retry-After: exponential backoff from half a second, with jitter so that clients spread out.
  return Math.round(500 * 2 ** attempt * (0.75 + Math.random() * 0.5));
}

/**
 * One attempt's cancellation: the caller's signal or the time limit, whichever comes first, and the
 * error each stands for (the caller's own reason, or a TimeoutError).
 */
export function deadline(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; done(): void; explain(err: unknown, what: string): unknown } {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  timer.unref?.();
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
    explain(err, what) {
      if (signal?.aborted) return signal.reason;
      if (timedOut) return new TimeoutError(`${what} took longer than ${timeoutMs} ms`, { cause: err });
      if (err instanceof PeriscopeError) return err;
      return new ConnectionError(`${what} failed: ${describe(err)}`, { cause: err });
    },
  };
}

/** Wait `ms`, or reject with the signal's reason as soon as it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function answerBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
