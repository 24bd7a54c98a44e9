/**
 * Typed errors of the domain. Each has a `code` from one list and the HTTP status it maps to; the
 * edges (route and socket handlers) turn them into responses in one place instead of choosing
 * statuses themselves. Every error body of the service and the portal is one shape, `ErrorBody`.
 */
export type FieldIssue = { field: string; message: string };

/** Every error code a client can see, with the status it answers by default (docs/api.md#errors). */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid: 400, // fields break the rules; `issues` names each one
  unauthorized: 401, // missing, unknown or revoked API key
  sign_in_required: 401,
  forbidden: 403,
  key_refused: 403, // the service refused the team's stored key (portal)
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  no_key: 409, // the team has no usable key for this (portal)
  gone: 410,
  payload_too_large: 413,
  upgrade_required: 426,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  upstream_failed: 502, // the service behind the portal failed or could not be reached
  upstream_rejected: 502, // the service answered something the portal did not expect
  unavailable: 503,
  timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && Object.hasOwn(ERROR_STATUS, v);

/** The JSON body of every error answer. Fields beyond these are the error's own (`rate` on a search). */
export type ErrorBody = { error: string; code: ErrorCode; issues?: FieldIssue[]; retryAfterSeconds?: number };

/**
 * Next bundles pages, route handlers and the custom server separately, each with its own copy of
 * this module, so `instanceof` fails across them. Every domain error carries this registered
 * symbol, and `asDomainError` is the one place that recognises one.
 */
const DOMAIN_ERROR = Symbol.for('periscope.domain-error');

type ErrorOptions = { status?: number; headers?: Record<string, string>; issues?: FieldIssue[] };

export class DomainError extends Error {
  readonly [DOMAIN_ERROR] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly issues: FieldIssue[] | undefined;
  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.issues = options.issues;
  }
  /** The JSON body sent to clients. */
  body(): ErrorBody {
    return { error: this.message, code: this.code, ...(this.issues ? { issues: this.issues } : {}) };
  }
}

export class BadRequest extends DomainError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

export class ValidationFailed extends DomainError {
  declare readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], message = 'request body does not match the schema') {
    super('invalid', message, { issues });
  }
}

export class Unauthorized extends DomainError {
  constructor(message = 'missing or invalid API key') {
    super('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });
  }
}

export class NotFound extends DomainError {
  constructor(message = 'not found') {
    super('not_found', message);
  }
}

export class MethodNotAllowed extends DomainError {
  constructor(allowed: readonly string[]) {
    super('method_not_allowed', `method not allowed; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } });
  }
}

export class PayloadTooLarge extends DomainError {
  constructor(limitBytes: number) {
    super('payload_too_large', `request body is larger than ${limitBytes} bytes`);
  }
}

export class TooManyRequests extends DomainError {
  constructor(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super('rate_limited', message, { headers: { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}

export class BadGateway extends DomainError {
  constructor(message: string) {
    super('bad_gateway', message);
  }
}

export class ServiceUnavailable extends DomainError {
  constructor(message: string, retryAfterSeconds?: number) {
    super('unavailable', message, { headers: retryAfterSeconds ? { 'retry-after': String(Math.ceil(retryAfterSeconds)) } : {} });
  }
}

/** The domain error `err` is (from any bundle's copy of this module), or null for anything else. */
export function asDomainError(err: unknown): DomainError | null {
  if (err instanceof DomainError) return err;
  return typeof err === 'object' && err !== null && (err as { [DOMAIN_ERROR]?: unknown })[DOMAIN_ERROR] === true
    ? (err as DomainError)
    : null;
}

/** Any error becomes a DomainError; unknown ones are internal and keep their detail out of the body. */
export function toDomainError(err: unknown): DomainError {
  return asDomainError(err) ?? new DomainError('internal', 'internal error');
}

export class UpgradeRequired extends DomainError {
  constructor(message = 'this endpoint is a WebSocket; open it with an Upgrade: websocket handshake') {
    super('upgrade_required', message, { headers: { upgrade: 'websocket', connection: 'Upgrade' } });
  }
}
