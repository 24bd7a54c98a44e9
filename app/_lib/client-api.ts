import { isErrorCode, type ErrorBody, type ErrorCode } from '#shared/errors.ts';

/** The browser's side of the portal's JSON API: one error shape (ErrorBody), field errors kept for forms. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly fields: Record<string, string>;
  constructor(status: number, code: ErrorCode, message: string, fields: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export async function api<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = (await res.json().catch(() => ({}))) as Partial<ErrorBody>;
  if (!res.ok) {
    if (res.status === 401) window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname)}`);
    const fields = Object.fromEntries((data.issues ?? []).map((i) => [i.field, i.message]));
    const code = isErrorCode(data.code) ? data.code : res.status >= 500 ? 'internal' : 'bad_request';
    throw new ApiError(res.status, code, data.error ?? `Request failed (${res.status}).`, fields);
  }
  return data as T;
}
