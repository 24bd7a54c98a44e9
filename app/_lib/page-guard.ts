import { redirect } from 'next/navigation.js';
import { signedIn, type Signed } from './session.ts';

// Pages only: route handlers use app/_lib/api.ts (next/navigation is not for route bundles).
/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requireSignedIn(): Promise<Signed> {
  const s = await signedIn();
  if (!s) redirect('/signin');
  return s;
}
