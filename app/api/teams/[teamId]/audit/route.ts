import { auditLog } from '../../../../../lib/portal/vault.ts';
import { route } from '../../../../_lib/api.ts';

export const GET = route<{ teamId: string }>(async ({ portal, actor, params }) => ({ events: await auditLog(portal.data, actor, params.teamId) }));
