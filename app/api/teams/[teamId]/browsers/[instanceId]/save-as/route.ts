import { stopAndSaveBrowser } from '#portal/live/browsers.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; instanceId: string };
/** Stop the browser and save its state as one of its key's profiles (`{ name }`). */
export const POST = route<P>(async ({ portal, actor, user, params, body }) =>
  stopAndSaveBrowser(portal, actor, user, params.teamId, params.instanceId, await body()),
);
