import { auditLog } from '#portal/teams/audit.ts';
import { route } from '#app/_lib/api.ts';

/** One page of the log: `?kind=&actor=&before=` (see lib/portal/teams/audit.ts). */
export const GET = route<{ teamId: string }>(async ({ req, portal, actor, params }) =>
  auditLog(portal.data, actor, params.teamId, Object.fromEntries(new URL(req.url).searchParams)),
);
