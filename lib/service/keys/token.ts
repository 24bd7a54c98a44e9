import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An API key reads `psk_<id>_<secret>`: a public 16-hex-digit id that finds the row, and 256
 * random bits of secret, of which only a SHA-256 hash is stored. A slow password hash buys
 * nothing against 256 bits of entropy and would cost every request.
 */
export const KEY_PREFIX = 'psk_';
const KEY_RE = /^psk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export type ParsedKey = { id: string; secret: string };

export function generateKey(): { id: string; secret: string; token: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, token: `${KEY_PREFIX}${id}_${secret}` };
}

export function parseKey(token: string): ParsedKey | null {
  const m = KEY_RE.exec(token);
  return m?.[1] && m[2] ? { id: m[1], secret: m[2] } : null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const actual = hashSecret(secret);
  return actual.length === storedHash.length && timingSafeEqual(actual, storedHash);
}

/** `Authorization: Bearer <token>` → token, or null when the header is absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}
