import ipaddr from 'ipaddr.js';

/**
 * What the live view's address bar does with what a person typed, the way a desktop browser's
 * does: a full address is opened as written; a bare name is tried over https first and, if that
 * fails to connect, over http (Chromium's HTTPS-Upgrades); a local name or an IP address is opened
 * over http, as a desktop browser does for names that cannot have a public certificate.
 */
export type AddressPlan =
  { ok: true; url: string; /** Where to go when `url` fails to connect. */ fallback: string | null } | { ok: false; message: string };

/** Schemes a person may open. The service allows the same ones (lib/service/browser/cdp-policy.ts). */
const OPENABLE = new Set(['http:', 'https:', 'data:', 'about:']);

const WHY_NOT: Record<string, string> = {
  'file:': 'would read files on the machine that runs the browser service',
  'javascript:': 'would run a script in the page instead of opening an address; use the page itself',
  'view-source:': 'is not available in remote browsers',
};

export function planNavigation(input: string): AddressPlan {
  const text = input.trim();
  if (!text) return { ok: false, message: 'Type an address to open.' };
  if (/^about:/i.test(text)) {
    return text.toLowerCase() === 'about:blank' ? { ok: true, url: 'about:blank', fallback: null } : refused('about:', text);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  // `localhost:8080/x` and `example.com:443` name a port, not a scheme.
  const hasScheme = scheme !== undefined && !/^[^/:]+:\d+(\/|\?|#|$)/.test(text);
  if (hasScheme) {
    if (!OPENABLE.has(`${scheme}:`)) return refused(`${scheme}:`, text);
    const url = parse(text);
    if (!url) return { ok: false, message: `“${clip(text)}” is not an address a browser can open.` };
    return { ok: true, url: url.href, fallback: null };
  }
  const secure = parse(`https://${text}`);
  if (!secure || !secure.hostname) return { ok: false, message: `“${clip(text)}” is not an address a browser can open.` };
  const plain = new URL(secure.href);
  plain.protocol = 'http:';
  if (isLocalName(secure.hostname)) return { ok: true, url: plain.href, fallback: null };
  return { ok: true, url: secure.href, fallback: plain.href };
}

/**
 * Whether a failed navigation is one that the plain-http fallback may rescue: the secure
 * connection could not be made at all. A page that answered with an error, or a navigation that
 * was cancelled, is not tried again over http.
 */
export function worthFallingBack(errorText: string): boolean {
  return errorText !== '' && !/ERR_ABORTED|ERR_BLOCKED_BY|ERR_INVALID_URL|ERR_UNSAFE/.test(errorText);
}

function refused(scheme: string, text: string): AddressPlan {
  const why = WHY_NOT[scheme] ?? 'is not a web address';
  return {
    ok: false,
    message: `${scheme} addresses cannot be opened here: “${clip(text)}” ${why}. Remote browsers open http and https addresses, data: and about:blank.`,
  };
}

function parse(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** `localhost`, a name without a dot, `*.localhost`, or an IP address: no public certificate can exist. */
function isLocalName(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || !host.includes('.') || ipaddr.isValid(host);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
