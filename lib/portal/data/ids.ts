import { createHash, randomBytes } from 'node:crypto';

/** A random identifier with a readable prefix, e.g. team_3kq9…; 96 random bits. */
export const newId = (prefix: 'usr' | 'team' | 'inv' | 'key' | 'lnk' | 'prx'): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** A random single-use token (256 bits) and the hash under which it is stored. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('base64url');
