import { Unauthorized } from '#shared/errors.ts';
import type { ApiKey, KeyStore } from './store.ts';
import { bearerToken } from './token.ts';

/** The live key named by an Authorization header, or Unauthorized. */
export async function authenticate(keys: KeyStore, authorization: string | undefined): Promise<ApiKey> {
  const token = bearerToken(authorization);
  if (!token) throw new Unauthorized('missing Authorization: Bearer <API key> header');
  const key = await keys.verify(token);
  if (!key) throw new Unauthorized('invalid or revoked API key');
  return key;
}
