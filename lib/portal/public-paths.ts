/**
 * The one list of what may be reached without a session: sign-in, sign-up, the auth endpoints
 * that sign-in itself uses, health, and Next's static assets. Everything else requires a
 * session; proxy.ts applies this to every request, and the walk-every-route test checks it.
 */
const PUBLIC_PAGES = new Set(['/signin', '/signup']);
const PUBLIC_API = new Set(['/api/health', '/api/signup']);
const PUBLIC_PREFIXES = ['/api/auth/', '/_next/static/', '/_next/image'];
const PUBLIC_FILES = new Set(['/favicon.ico', '/icon.svg', '/robots.txt']);

export function isPublicPath(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PUBLIC_PAGES.has(path) || PUBLIC_API.has(path) || PUBLIC_FILES.has(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

export const isApiPath = (pathname: string): boolean => pathname === '/api' || pathname.startsWith('/api/');

/** A same-site path to return to after sign-in; anything else falls back to the home page. */
export function safeCallback(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}
