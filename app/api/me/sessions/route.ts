import { endAllSessions } from '#portal/accounts/accounts.ts';
import { route } from '#app/_lib/api.ts';

/** Sign out everywhere: every session of the account ends, this one included. */
export const DELETE = route(async ({ portal, actor }) => {
  await endAllSessions(portal.data, actor);
});
