import type { Actor } from '../teams/access.ts';
import { withTeamKey, type Vault } from './vault.ts';

export type KeyCheck = { accepted: boolean; message: string };

/**
 * Use a team's key on the member's behalf: ask the service whether it accepts it. The key goes
 * from the vault straight into the Authorization header of a server-side request; only the
 * verdict comes back. A key the service accepts gets past authentication to the browser-id
 * check (400); a revoked or unknown one is refused with 401.
 */
export async function checkKey(v: Vault, actor: Actor, teamId: string, keyId: string, serviceUrl: string): Promise<KeyCheck> {
  return withTeamKey(v, actor, teamId, keyId, 'check', async (token) => {
    let status: number;
    try {
      const res = await fetch(`${serviceUrl}/json/version`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.body?.cancel();
    } catch {
      return { accepted: false, message: 'The service could not be reached.' };
    }
    if (status === 401) return { accepted: false, message: 'The service refused this key (revoked or unknown).' };
    if (status >= 500) return { accepted: false, message: `The service answered with an error (${status}).` };
    return { accepted: true, message: 'The service accepts this key.' };
  });
}
