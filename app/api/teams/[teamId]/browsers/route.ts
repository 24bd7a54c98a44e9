import { listBrowsers, startBrowser } from '#portal/live/browsers.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ browsers: await listBrowsers(portal, actor, params.teamId) }));
export const POST = route<P>(async ({ portal, actor, user, params, body }) => ({
  browser: await startBrowser(portal, actor, user, params.teamId, await body()),
}));
