import { signUp } from '#portal/accounts/accounts.ts';
import { publicRoute } from '#app/_lib/api.ts';

/** Create an account (public); the page then signs in through next-auth. The answer never says whether the address was taken. */
export const POST = publicRoute(async ({ portal, body, address }) =>
  signUp(portal.data, await body(), { enabled: portal.config.signupEnabled, throttle: portal.throttle, address }),
);
