import { getToken } from 'next-auth/jwt';
import { NextResponse, type NextRequest } from 'next/server.js';
import { SignInRequired } from '#portal/errors.ts';
import { publishedPortal } from '#portal/handle.ts';
import { isApiPath, isFramablePath, isPublicPath } from '#portal/accounts/public-paths.ts';

/**
 * The session check, in one place, before any page or route renders: everything outside
 * lib/portal/accounts/public-paths.ts needs a valid session token. Pages redirect to sign-in, API routes
 * answer 401. Route handlers and pages check again on the server (app/_lib/session.ts), so a
 * mistake here fails closed.
 */
// The secret the composition root resolved (server/portal/main.ts); without it nobody is signed in.
const authSecret = (): string | undefined => publishedPortal()?.authSecret;

const SECURITY_HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

function withHeaders(res: NextResponse): NextResponse {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}

/** A shared browser's page may be framed by any site: holding its link is the permission (decision 0071). */
function framable(res: NextResponse): NextResponse {
  withHeaders(res);
  res.headers.delete('x-frame-options');
  res.headers.set('content-security-policy', 'frame-ancestors *');
  res.headers.set('referrer-policy', 'no-referrer');
  return res;
}

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  if (pathname.startsWith('/_next/')) return NextResponse.next();
  const secret = authSecret();
  const token = secret ? await getToken({ req, secret }).catch(() => null) : null;
  const signedIn = typeof token?.uid === 'string';
  // The sign-in and sign-up pages send a signed-in user on themselves: only they can tell a
  // revoked session (server-side version, app/_lib/session.ts) from a live one.
  if (isFramablePath(pathname)) return framable(NextResponse.next());
  if (isPublicPath(pathname)) return withHeaders(NextResponse.next());
  if (signedIn) return withHeaders(NextResponse.next());
  if (isApiPath(pathname)) {
    const e = new SignInRequired();
    return withHeaders(NextResponse.json(e.body(), { status: e.status, headers: { 'cache-control': 'no-store' } }));
  }
  const target = new URL('/signin', req.url);
  if (pathname !== '/') target.searchParams.set('callbackUrl', `${pathname}${search}`);
  return withHeaders(NextResponse.redirect(target));
}
