import { searchForMember } from '#portal/search/search.ts';
import { route } from '#app/_lib/api.ts';

type P = { teamId: string };
/** The hosted search page's proxy to POST {search_url}/v0/search with the team's default key. */
export const POST = route<P>(async ({ portal, actor, params, body }) =>
  searchForMember(portal, actor, params.teamId, await body(), { record: true }),
);
