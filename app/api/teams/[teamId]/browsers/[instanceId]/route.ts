import { getBrowser, renameBrowser, stopBrowser } from '#portal/live/browsers.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string; instanceId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({
  browser: await getBrowser(portal, actor, params.teamId, params.instanceId),
}));
export const PATCH = route<P>(async ({ portal, actor, params, body }) => ({
  browser: await renameBrowser(portal, actor, params.teamId, params.instanceId, await body()),
}));
export const DELETE = route<P>(async ({ portal, actor, user, params }) => {
  await stopBrowser(portal, actor, user, params.teamId, params.instanceId);
  return { ok: true };
});
