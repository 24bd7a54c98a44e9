/**
 * Every failure the client reports is a PeriscopeError; the service's answers map to one subclass
 * per status (docs/api.md, "Error codes"), so callers branch with `instanceof`.
 */

/** One wrong field of a request, as the service names it (`count`, `sites`, `content-type`…). */
export type FieldIssue = { field: string; message: string };

export class PeriscopeError extends Error {
  override readonly name: string = 'PeriscopeError';
  /** The HTTP status of the service's answer; absent when none came (timeout, network). */
  readonly status: number | undefined;
  /** The service's machine-readable code (`invalid`, `rate_limited`…), when it answered one. */
  readonly code: string | undefined;
  /** The answer's parsed JSON body, when there was one. */
  readonly body: unknown;

  constructor(message: string, opts: { status?: number; code?: string; body?: unknown; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status;
    this.code = opts.code;
    this.body = opts.body;
  }
}

/** 400: the request breaks the interface's rules; `issues` names every wrong field. */
export class InvalidRequestError extends PeriscopeError {
  override readonly name = 'InvalidRequestError';
  readonly issues: FieldIssue[];
  /** The first wrong field (`query`, `count`…), or undefined when the service named none. */
  readonly field: string | undefined;

  constructor(message: string, opts: { status?: number; code?: string; body?: unknown; issues?: FieldIssue[] }) {
    super(message, opts);
    this.issues = opts.issues ?? [];
    this.field = this.issues[0]?.field;
  }
}

/** 401: the API key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends PeriscopeError {
  override readonly name = 'AuthenticationError';
}

/** 404: no such browser (for this key), file or path. */
export class NotFoundError extends PeriscopeError {
  override readonly name = 'NotFoundError';
}

/** 409: the thing is in a state that does not allow it (a download still being written). */
export class ConflictError extends PeriscopeError {
  override readonly name = 'ConflictError';
}

/** 413: the body or file is over its limit. */
export class PayloadTooLargeError extends PeriscopeError {
  override readonly name = 'PayloadTooLargeError';
}

/** A refusal that says when to try again (`Retry-After`, in seconds). */
abstract class RetryableError extends PeriscopeError {
  /** Seconds until a retry may succeed, from the answer's `Retry-After`; undefined when it gave none. */
  readonly retryAfter: number | undefined;

  constructor(message: string, opts: { status?: number; code?: string; body?: unknown; retryAfter?: number | undefined }) {
    super(message, opts);
    this.retryAfter = opts.retryAfter;
  }
}

/** 429: over a per-key limit (search requests a minute, concurrent browsers). */
export class RateLimitError extends RetryableError {
  override readonly name = 'RateLimitError';
}

/** 502: something behind the service failed (the index, Chromium); retrying usually helps. */
export class BadGatewayError extends RetryableError {
  override readonly name = 'BadGatewayError';
}

/** 503: the service cannot serve this now (capacity, shutting down, a limit that cannot be checked). */
export class UnavailableError extends RetryableError {
  override readonly name = 'UnavailableError';
}

/** The call took longer than its `timeoutMs`. */
export class TimeoutError extends PeriscopeError {
  override readonly name = 'TimeoutError';
}

/** The service could not be reached, or the connection broke before an answer. */
export class ConnectionError extends PeriscopeError {
  override readonly name = 'ConnectionError';
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its day and month (`Wed, 21 Oct 2015 07:28:00 GMT`); a number of any other form is none.
  if (!/[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error for a service answer of `status` with `body` (its JSON, or its text when it was not JSON). */
export function errorFromAnswer(status: number, body: unknown, retryAfterHeader: string | null): PeriscopeError {
  const json = typeof body === 'object' && body !== null ? (body as { error?: unknown; code?: unknown; issues?: unknown }) : {};
  const code = typeof json.code === 'string' ? json.code : undefined;
  const said = typeof json.error === 'string' ? json.error : typeof body === 'string' && body ? body.slice(0, 500) : `HTTP ${status}`;
  const message = `${said} (${status}${code ? ` ${code}` : ''})`;
  const retryAfter = parseRetryAfter(retryAfterHeader);
  const opts = { status, code, body };
  switch (status) {
    case 400:
      return new InvalidRequestError(message, { ...opts, issues: fieldIssues(json.issues) });
    case 401:
      return new AuthenticationError(message, opts);
    case 404:
      return new NotFoundError(message, opts);
    case 409:
      return new ConflictError(message, opts);
    case 413:
      return new PayloadTooLargeError(message, opts);
    case 429:
      return new RateLimitError(message, { ...opts, retryAfter });
    case 502:
      return new BadGatewayError(message, { ...opts, retryAfter });
    case 503:
      return new UnavailableError(message, { ...opts, retryAfter });
    default:
      return new PeriscopeError(message, opts);
  }
}

function fieldIssues(value: unknown): FieldIssue[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => {
    const issue = v as { field?: unknown; message?: unknown };
    return typeof issue?.field === 'string' ? [{ field: issue.field, message: String(issue.message ?? '') }] : [];
  });
}
