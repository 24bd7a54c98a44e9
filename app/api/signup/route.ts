import { signUp } from '../../../lib/portal/accounts.ts';
import { publicRoute } from '../../_lib/api.ts';

/** Create an account (public); the page then signs in through next-auth. */
export const POST = publicRoute(async ({ portal, body }) => ({ user: await signUp(portal.data, await body(), { enabled: portal.config.signupEnabled }) }));
