import { auditLog } from '../../../../../lib/portal/audit.ts';
import { route } from '../../../../_lib/api.ts';

/** One page of the log: `?kind=&actor=&before=` (see lib/portal/audit.ts). */
export const GET = route<{ teamId: string }>(async ({ req, portal, actor, params }) =>
  auditLog(portal.data, actor, params.teamId, Object.fromEntries(new URL(req.url).searchParams)));
