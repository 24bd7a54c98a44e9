import { watchKeyBrowser } from '#portal/live/browsers.ts';
import { route } from '#app/_lib/api.ts';

/** Watch a script's browser (`instanceId` is its br_ id, from the dashboard's list): it opens in the live view. */
export const POST = route<{ teamId: string; instanceId: string }>(async ({ portal, actor, user, params }) => ({
  browser: await watchKeyBrowser(portal, actor, user, params.teamId, params.instanceId),
}));
