/**
 * What the egress proxy answers in a site's place when it does not forward a plain-http request:
 * a status, a page a person can read in the browser, and the reason in headers a program can read
 * (`X-Periscope-Egress`, `X-Periscope-Egress-Detail`; docs/api.md, "Egress"). A refused https
 * connection cannot carry either: Chromium shows no answer to a refused CONNECT.
 */
export type EgressRefusal =
  | 'denied-address'
  | 'unresolved'
  | 'unreachable'
  // Through the tenant's own proxy (X-Browser-Proxy, decision 0104).
  | 'proxy-denied'
  | 'proxy-auth'
  | 'proxy-refused'
  | 'proxy-unreachable';

/** Every header of the proxy's own starts so; the proxy removes them from the answers it forwards. */
export const EGRESS_HEADER_PREFIX = 'x-periscope-egress';

const WORDS: Record<EgressRefusal, { status: number; title: string; explain: string }> = {
  'denied-address': {
    status: 403,
    title: 'Blocked by the egress policy',
    explain:
      'Remote browsers may not reach loopback, private, link-local or reserved addresses, nor the machine the browser service runs on. ' +
      'The operator of the service can allow an address or range with BROWSER_EGRESS_ALLOW.',
  },
  unresolved: {
    status: 403,
    title: 'Not found',
    explain: 'The name does not resolve to any address. Check the spelling.',
  },
  unreachable: {
    status: 502,
    title: 'The site did not answer',
    explain: 'The browser service could not connect to it: the site may be down, or not accept connections on that port.',
  },
  'proxy-denied': {
    status: 403,
    title: 'Your proxy is blocked by the egress policy',
    explain:
      'The proxy named in X-Browser-Proxy is at a loopback, private, link-local or reserved address, or on the machine the browser service runs on. ' +
      'The operator of the service can allow an address or range with BROWSER_EGRESS_ALLOW.',
  },
  'proxy-auth': {
    status: 502,
    title: 'Your proxy refused the login',
    explain: 'The proxy named in X-Browser-Proxy did not accept its user name and password. Check them.',
  },
  'proxy-refused': {
    status: 502,
    title: 'Your proxy refused the connection',
    explain: 'The proxy named in X-Browser-Proxy would not connect to this site.',
  },
  'proxy-unreachable': {
    status: 502,
    title: 'Your proxy did not answer',
    explain: 'The browser service could not connect to the proxy named in X-Browser-Proxy: it may be down, or not listen on that port.',
  },
};

/** Why the proxy answered in a site's place, in a few words, for a program's message (`why` of an unknown kind is the kind). */
export function refusalInWords(kind: string): string {
  const words: Record<EgressRefusal, string> = {
    'denied-address': 'refused by the egress policy',
    unresolved: 'the name did not resolve',
    unreachable: 'the site did not answer',
    'proxy-denied': 'your proxy is refused by the egress policy',
    'proxy-auth': 'your proxy refused the login',
    'proxy-refused': 'your proxy refused the connection',
    'proxy-unreachable': 'your proxy did not answer',
  };
  return Object.hasOwn(words, kind) ? words[kind as EgressRefusal] : kind;
}

export function refusalAnswer(reason: EgressRefusal, host: string, detail: string) {
  const words = WORDS[reason];
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-periscope-egress': reason,
    'x-periscope-egress-detail': headerSafe(detail),
  };
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(`${words.title}: ${host}`)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:12vh auto;padding:0 1.5rem;color:#1f2328;background:#fff}
h1{font-size:1.4rem;margin:0 0 .75rem}code{background:#f0f2f4;padding:.1em .3em;border-radius:4px}p.detail{color:#59636e}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}code{background:#262c36}p.detail{color:#9198a1}}</style></head>
<body><h1>${escapeHtml(words.title)}: ${escapeHtml(host)}</h1>
<p>${escapeHtml(words.explain).replace('BROWSER_EGRESS_ALLOW', '<code>BROWSER_EGRESS_ALLOW</code>')}</p>
${detail ? `<p class="detail">${escapeHtml(detail)}</p>` : ''}
</body></html>
`;
  return { status: words.status, headers, body };
}

/** Header values are Latin-1 without control characters; the detail is ASCII already, and kept short. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
