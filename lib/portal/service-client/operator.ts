import type { z } from 'zod';
import {
  OPERATOR_KEYS_PATH,
  createdKeyAnswer,
  keyAnswer,
  keyListAnswer,
  revokedKeyAnswer,
  type KeyChange,
  type NewOperatorKey,
  type OperatorKey,
} from '#shared/protocol/operator.ts';

/** How long the portal waits for the service's operator interface. */
const TIMEOUT_MS = 10_000;

/** The service refused or could not be reached; `status` is the service's answer, 0 when none came. */
export class OperatorCallFailed extends Error {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/**
 * The service's operator interface for keys (lib/shared/protocol/operator.ts), as the portal calls
 * it with the operator token, wherever the service runs (decision 0107). Every answer is parsed.
 */
export class OperatorClient {
  readonly #base: string;
  readonly #token: string;

  constructor(serviceUrl: string, token: string) {
    this.#base = `${serviceUrl.replace(/\/$/, '')}${OPERATOR_KEYS_PATH}`;
    this.#token = token;
  }

  async list(): Promise<OperatorKey[]> {
    return (await this.#call(keyListAnswer, 'GET', '')).keys;
  }

  /** The key, or null when the service has none with this id. */
  async get(id: string): Promise<OperatorKey | null> {
    try {
      return (await this.#call(keyAnswer, 'GET', `/${encodeURIComponent(id)}`)).key;
    } catch (err) {
      if (err instanceof OperatorCallFailed && err.status === 404) return null;
      throw err;
    }
  }

  create(key: NewOperatorKey): Promise<{ key: OperatorKey; token: string }> {
    return this.#call(createdKeyAnswer, 'POST', '', key);
  }

  async change(id: string, change: KeyChange): Promise<OperatorKey> {
    return (await this.#call(keyAnswer, 'PATCH', `/${encodeURIComponent(id)}`, change)).key;
  }

  revoke(id: string): Promise<{ key: OperatorKey; revoked: boolean }> {
    return this.#call(revokedKeyAnswer, 'DELETE', `/${encodeURIComponent(id)}`);
  }

  async #call<T extends z.ZodType>(answer: T, method: string, path: string, body?: unknown): Promise<z.output<T>> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new OperatorCallFailed(`the service's operator interface cannot be reached: ${(err as Error).message}`, 0);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // said below
    }
    if (!res.ok) {
      const said = (json as { error?: unknown } | null)?.error;
      throw new OperatorCallFailed(
        `the service's operator interface answered ${res.status}${typeof said === 'string' ? `: ${said}` : ''}`,
        res.status,
      );
    }
    const parsed = answer.safeParse(json);
    if (!parsed.success)
      throw new OperatorCallFailed(`the service's operator interface gave an answer this portal does not understand`, res.status);
    return parsed.data;
  }
}
