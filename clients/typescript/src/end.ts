/**
 * How a browser ended, read from the close of its `/start` socket (docs/api.md, section 1: the
 * close codes the service uses when it ends an instance itself).
 */
export type EndReason =
  /** This client stopped it (`stop()`), or closed its socket. */
  | 'client-closed'
  /** Someone holding the key stopped it: `DELETE /v0/browsers/{id}` (4410). */
  | 'stopped'
  /** It reached its lifetime limit (4408). */
  | 'lifetime'
  /** Its files passed the disk limit (4413). */
  | 'diskLimit'
  /** The API key was revoked while it lived (4401). */
  | 'keyRevoked'
  /** Chromium exited or crashed on its own (4500). */
  | 'crashed'
  /** The service is shutting down (1001). */
  | 'shutdown'
  /** The service failed while holding it (1011). */
  | 'internal'
  /** The service node running it was lost (4502, several nodes only). */
  | 'nodeLost'
  /** The connection dropped without a close: the network, or the service died (1006). */
  | 'connectionLost'
  /** A close code this client does not know (a newer service); `code` and `message` say more. */
  | 'unknown';

export type BrowserEnd = {
  reason: EndReason;
  /** The WebSocket close code (1006 when the connection dropped without one). */
  code: number;
  /** The close reason text the service sent, if any. */
  message: string;
};

const BY_CODE: Record<number, EndReason> = {
  1001: 'shutdown',
  1011: 'internal',
  4401: 'keyRevoked',
  4408: 'lifetime',
  4410: 'stopped',
  4413: 'diskLimit',
  4500: 'crashed',
  4502: 'nodeLost',
  1006: 'connectionLost',
};

/** The end a close with `code` stands for; `stoppedHere` when this client closed the socket itself. */
export function endOf(code: number, message: string, stoppedHere: boolean): BrowserEnd {
  if (stoppedHere) return { reason: 'client-closed', code, message };
  return { reason: BY_CODE[code] ?? 'unknown', code, message };
}
