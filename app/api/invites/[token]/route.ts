import { acceptInvite, previewInvite } from '#portal/teams/invites.ts';
import { route } from '#app/_lib/api.ts';

type P = { token: string };
export const GET = route<P>(async ({ portal, actor, params }) => ({ invite: await previewInvite(portal.data, actor, params.token) }));
export const POST = route<P>(async ({ portal, actor, params }) => acceptInvite(portal.data, actor, params.token));
