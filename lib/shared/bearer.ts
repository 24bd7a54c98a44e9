import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries `Bearer <token>`, compared in constant time (both sides
 * hashed first, so neither the content nor the length of the token leaks through timing).
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
