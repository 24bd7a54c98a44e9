/**
 * Typed errors of the domain. Each carries the HTTP status it maps to; the edges (route and
 * socket handlers) turn them into responses in one place instead of choosing statuses themselves.
 */
export type FieldIssue = { field: string; message: string };

/**
 * Next bundles pages, route handlers and the custom server separately, each with its own copy of
 * this module, so `instanceof` fails across them. Every domain error carries this registered
 * symbol, and `asServiceError` is the one place that recognises one.
 */
const DOMAIN_ERROR = Symbol.for('periscope.domain-error');

export class ServiceError extends Error {
  readonly [DOMAIN_ERROR] = true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.headers = headers;
  }
  /** The JSON body sent to clients. */
  body(): Record<string, unknown> {
    return { error: this.message };
  }
}

export class BadRequest extends ServiceError {
  constructor(message: string) { super(400, message); }
}

export class ValidationFailed extends ServiceError {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], message = 'request body does not match the schema') {
    super(400, message);
    this.issues = issues;
  }
  override body() {
    return { error: this.message, issues: this.issues };
  }
}

export class Unauthorized extends ServiceError {
  constructor(message = 'missing or invalid API key') {
    super(401, message, { 'www-authenticate': 'Bearer' });
  }
}

export class NotFound extends ServiceError {
  constructor(message = 'not found') { super(404, message); }
}

export class MethodNotAllowed extends ServiceError {
  constructor(allowed: readonly string[]) {
    super(405, `method not allowed; use ${allowed.join(', ')}`, { allow: allowed.join(', ') });
  }
}

export class PayloadTooLarge extends ServiceError {
  constructor(limitBytes: number) { super(413, `request body is larger than ${limitBytes} bytes`); }
}

export class UnsupportedMediaType extends ServiceError {
  constructor(expected: string) { super(415, `Content-Type must be ${expected}`); }
}

export class TooManyRequests extends ServiceError {
  constructor(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super(429, message, { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class BadGateway extends ServiceError {
  constructor(message: string) { super(502, message); }
}

export class ServiceUnavailable extends ServiceError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(503, message, retryAfterSeconds ? { 'retry-after': String(Math.ceil(retryAfterSeconds)) } : {});
  }
}

/** The domain error `err` is (from any bundle's copy of this module), or null for anything else. */
export function asServiceError(err: unknown): ServiceError | null {
  if (err instanceof ServiceError) return err;
  return typeof err === 'object' && err !== null && (err as { [DOMAIN_ERROR]?: unknown })[DOMAIN_ERROR] === true ? (err as ServiceError) : null;
}

/** Any error becomes a ServiceError; unknown ones are internal and keep their detail out of the body. */
export function toServiceError(err: unknown): ServiceError {
  return asServiceError(err) ?? new ServiceError(500, 'internal error');
}

export class UpgradeRequired extends ServiceError {
  constructor(message = 'this endpoint is a WebSocket; open it with an Upgrade: websocket handshake') {
    super(426, message, { upgrade: 'websocket', connection: 'Upgrade' });
  }
}
