import { revokeKey, updateKey } from '#portal/keys/vault.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; keyId: string };
/** Rename ({ name }) or make the team's default ({ default: true }). */
export const PATCH = route<P>(async ({ portal, actor, params, body }) => ({
  key: await updateKey(portal.vault, actor, params.teamId, params.keyId, await body()),
}));
/** Revoke (kept in the list, marked revoked; revoked at the service too when it issued the key). */
export const DELETE = route<P>(async ({ portal, actor, params }) => ({
  key: await revokeKey(portal.vault, actor, params.teamId, params.keyId),
}));
