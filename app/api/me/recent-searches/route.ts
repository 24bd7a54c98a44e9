import { clearRecentSearches, recentSearches } from '#portal/search/search.ts';
import { route } from '#app/_lib/api.ts';

export const GET = route(async ({ portal, actor }) => ({ searches: await recentSearches(portal.data, actor) }));
export const DELETE = route(async ({ portal, actor }) => {
  await clearRecentSearches(portal.data, actor);
  return { searches: [] };
});
