import { addKey, listKeys } from '#portal/keys/vault.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ keys: await listKeys(portal.vault, actor, params.teamId) }));
/** The full key is in this answer only; afterwards only its masked hint. */
export const POST = route<P>(async ({ portal, actor, params, body }) => addKey(portal.vault, actor, params.teamId, await body()));
