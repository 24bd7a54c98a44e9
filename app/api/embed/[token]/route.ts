import { Gone, NotFound } from '#portal/errors.ts';
import { LINK_STATUS_TEXT, resolveLiveLink } from '#portal/live/links.ts';
import { publicRoute } from '#app/_lib/api.ts';

/**
 * What a shared link opens, for its holder (no session): the browser's name and what the link
 * allows; 410 once it is revoked, expired or its browser ended, 404 for no such link.
 */
export const GET = publicRoute<{ token: string }>(async ({ portal, params }) => {
  const state = await resolveLiveLink(portal.data, portal.browsers, params.token);
  if (state.status === 'invalid') throw new NotFound(LINK_STATUS_TEXT.invalid.title);
  if (state.status !== 'open') throw new Gone(LINK_STATUS_TEXT[state.status].title);
  return { name: state.at.row.name, mode: state.link.mode, expiresAt: state.link.expiresAt };
});
