import { resetPassword } from '#portal/accounts/accounts.ts';
import { publicRoute } from '#app/_lib/api.ts';

/** Use an operator's reset link (`{token, password}`); public, since the token is the proof. */
export const POST = publicRoute(async ({ portal, body }) => resetPassword(portal.data, await body()));
