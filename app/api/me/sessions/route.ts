import { endAllSessions } from '../../../../lib/portal/accounts.ts';
import { route } from '../../../_lib/api.ts';

/** Sign out everywhere: every session of the account ends, this one included. */
export const DELETE = route(async ({ portal, actor }) => {
  await endAllSessions(portal.data, actor);
});
