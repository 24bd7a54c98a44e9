import { Unauthorized } from '#shared/errors.ts';
import type { ApiKey, KeyStore } from './store.ts';
import { bearerToken } from './token.ts';

/** The live key named by an Authorization header, or Unauthorized. */
export function authenticate(keys: KeyStore, authorization: string | undefined): ApiKey {
  const token = bearerToken(authorization);
  if (!token) throw new Unauthorized('missing Authorization: Bearer <API key> header');
  const key = keys.verify(token);
  if (!key) throw new Unauthorized('invalid or revoked API key');
  return key;
}
