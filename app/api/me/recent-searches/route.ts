import { clearRecentSearches, recentSearches } from '../../../../lib/portal/search.ts';
import { route } from '../../../_lib/api.ts';

export const GET = route(async ({ portal, actor }) => ({ searches: await recentSearches(portal.data, actor) }));
export const DELETE = route(async ({ portal, actor }) => {
  await clearRecentSearches(portal.data, actor);
  return { searches: [] };
});
