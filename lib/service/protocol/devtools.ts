/**
 * The DevTools socket's protocol (the `webSocketDebuggerUrl` of /json/version): Chrome DevTools
 * Protocol messages, one JSON object per complete text message. What the service accepts from a
 * client and the codes it closes the socket with are defined here and documented in docs/api.md.
 */

/** A client's CDP command, validated: what is judged and what is sent on. */
export type ClientMessage = { id: number; method: string; params?: Record<string, unknown>; sessionId?: string };

/** Largest client message; a larger one closes the socket with 1009. */
export const DEVTOOLS_MAX_CLIENT_MESSAGE_BYTES = 100 * 1024 * 1024;

export const DEVTOOLS_CLOSE = {
  /** A binary message: CDP is text. */
  binary: { code: 1003, reason: 'CDP messages are text' },
  /** A message that is not one JSON object with an integer id and a method name. */
  malformed: { code: 1007, reason: 'each message must be one JSON object with an integer id and a method' },
  /** The instance ended (its /start socket closed, or the browser exited). */
  ended: { code: 1001, reason: 'browser ended' },
  /** The target this socket was attached to is gone. */
  targetGone: { code: 4404, reason: 'target closed' },
} as const;

export type MalformedMessage = { reason: string; id?: number };

const SESSION_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Parse one client text message. The result is what the policy judges and what is sent on:
 * the service never forwards the client's own text, so no parser difference between us and
 * Chromium (duplicate keys, escapes) can make Chromium read something other than what was judged.
 */
export function parseClientMessage(text: string): ClientMessage | MalformedMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'not a JSON object' };
  const { id, method, params, sessionId, ...rest } = value as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return { reason: 'id must be a non-negative integer' };
  if (typeof method !== 'string' || !/^[A-Za-z]+\.[A-Za-z]+$/.test(method)) return { reason: 'method must be Domain.command', id };
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    return { reason: 'params must be an object', id };
  if (sessionId !== undefined && (typeof sessionId !== 'string' || !SESSION_ID_RE.test(sessionId)))
    return { reason: 'sessionId must be a session id string', id };
  if (Object.keys(rest).length) return { reason: `unknown field ${JSON.stringify(Object.keys(rest)[0])}`, id };
  const message: ClientMessage = { id, method };
  if (params !== undefined) message.params = params as Record<string, unknown>;
  if (sessionId !== undefined) message.sessionId = sessionId;
  return message;
}

export const isMalformed = (m: ClientMessage | MalformedMessage): m is MalformedMessage => 'reason' in m;

/** The CDP error reply to a refused command, addressed like the command was. */
export function refusalReply(message: Pick<ClientMessage, 'id' | 'sessionId'>, reason: string): string {
  return JSON.stringify({
    id: message.id,
    error: { code: -32000, message: `Periscope: ${reason}` },
    ...(message.sessionId ? { sessionId: message.sessionId } : {}),
  });
}
