/**
 * Host names as a search request names sites (`sites`, `excludeSites`; docs/api.md): a bare host,
 * which also stands for every host under it. Shared by the service, which validates the request,
 * and the portal, whose search box reads `site:` words. Browser code imports this module: plain
 * functions and the WHATWG URL parser only.
 */

/** The most hosts one list may name. */
export const MAX_SITES = 20;

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/**
 * The normal form of a host name (lower case, no trailing dot, an international name in its
 * ASCII form as the index stores addresses), or what is wrong with it in words. Refused rather
 * than repaired: a scheme, a path, a port, user information, a wildcard, spaces.
 */
export function normaliseHost(input: string): { host: string } | { problem: string } {
  const shown = JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input);
  if (input === '') return { problem: 'an empty string is no host name' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return { problem: `${shown} must be a host name without a scheme, such as docs.python.org` };
  if (/[/?#]/.test(input)) return { problem: `${shown} must be a host name without a path, such as docs.python.org` };
  if (input.includes('@')) return { problem: `${shown} must be a host name without user information` };
  if (input.includes('*')) return { problem: `${shown} must be a host name without wildcards: a host covers its subdomains already` };
  if (/[\s%\\[\]]/u.test(input)) return { problem: `${shown} must be a host name, such as docs.python.org` };
  if (input.includes(':')) return { problem: `${shown} must be a host name without a port` };
  let host: string;
  try {
    // The URL parser lower-cases the name and gives an international one its ASCII (punycode) form.
    host = new URL(`http://${input}/`).hostname.replace(/\.$/, '');
  } catch {
    return { problem: `${shown} must be a host name, such as docs.python.org` };
  }
  if (!HOST.test(host)) return { problem: `${shown} must be a host name, such as docs.python.org` };
  return { host };
}
