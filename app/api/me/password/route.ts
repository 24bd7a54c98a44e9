import { changePassword } from '#portal/accounts/accounts.ts';
import { route } from '#app/_lib/api.ts';

/** Set a new password (`{currentPassword?, newPassword}`); every session of the account ends. */
export const PUT = route(async ({ portal, actor, body, address }) => {
  await changePassword(portal, actor, await body(), address);
});
