import { checkKey } from '#portal/keys/key-check.ts';
import { route } from '#app/_lib/api.ts';

/** Test a key against the service, server-side; the answer carries only the verdict. */
export const POST = route<{ teamId: string; keyId: string }>(async ({ portal, actor, params }) =>
  checkKey(portal.vault, actor, params.teamId, params.keyId, portal.config.serviceUrl),
);
