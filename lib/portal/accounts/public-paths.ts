/**
 * The one list of what may be reached without a session: sign-in, sign-up, password reset links,
 * invitation links (they name the team and let a newcomer sign up or sign in from there), shared
 * links to a live browser (the link itself is the permission: lib/portal/live/links.ts), the auth
 * endpoints that sign-in itself uses, health, and Next's static assets. Everything else requires a
 * session; proxy.ts applies this to every request, and the walk-every-route test checks it.
 */
const PUBLIC_PAGES = new Set(['/signin', '/signup']);
const PUBLIC_API = new Set(['/api/health', '/api/signup', '/api/reset']);
const PUBLIC_PREFIXES = ['/api/auth/', '/reset/', '/invite/', '/embed/', '/api/embed/', '/_next/static/', '/_next/image'];
const PUBLIC_FILES = new Set(['/favicon.ico', '/icon.svg', '/robots.txt']);

export function isPublicPath(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PUBLIC_PAGES.has(path) || PUBLIC_API.has(path) || PUBLIC_FILES.has(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

/** Pages another site may show in a frame: a shared live browser (decision 0071). Every other page refuses to be framed. */
export const isFramablePath = (pathname: string): boolean => /^\/embed\/[A-Za-z0-9_-]{43}$/.test(pathname);

export const isApiPath = (pathname: string): boolean => pathname === '/api' || pathname.startsWith('/api/');

/** C0 and C1 control characters (a browser drops or rewrites several) and backslashes (read as slashes). */
const hasControlOrBackslash = (value: string): boolean =>
  [...value].some((c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || c === '\\';
  });

/** An origin no request can come from: callbacks are resolved against it, never against a real host. */
const HOME = 'http://portal.invalid';

/**
 * A same-site path to return to after sign-in, or the home page. The value is parsed the way a
 * browser will parse it (WHATWG URL: tabs and newlines dropped, backslashes read as slashes) and
 * kept only when it resolves to the portal's own origin; anything with a control character or a
 * backslash is refused outright, whatever it would resolve to. What comes back is the parsed
 * path, query and fragment, never the raw text.
 */
export function safeCallback(value: string | null | undefined): string {
  if (!value || value.length > 2048 || !value.startsWith('/') || hasControlOrBackslash(value)) return '/';
  let url: URL;
  try {
    url = new URL(value, HOME);
  } catch {
    return '/';
  }
  if (url.origin !== HOME || url.pathname.startsWith('//')) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}
