import ipaddr from 'ipaddr.js';
import type { EgressJudgement } from '#shared/protocol/egress.ts';
import type { PageProblem } from '../protocol/live.ts';

/**
 * Why a tab's page did not load, in words a person can act on, shown by the live view outside the
 * remote screen. Two sources: the error Chromium gives a failed navigation (`net::ERR_…`), and the
 * answer of the browser service's egress proxy to a plain-http request it did not forward, which
 * names its reason in the `X-Periscope-Egress` header (docs/api.md, "Egress").
 */

/** The reasons the egress proxy gives in `X-Periscope-Egress`. */
export const EGRESS_REASONS = [
  'denied-address',
  'unresolved',
  'unreachable',
  // Through the tenant's own proxy (X-Browser-Proxy, decision 0104).
  'proxy-denied',
  'proxy-auth',
  'proxy-refused',
  'proxy-unreachable',
] as const;
export type EgressReason = (typeof EGRESS_REASONS)[number];

const ALLOW_HINT = (host: string) =>
  `If ${host} is on a network you trust, the operator of the browser service can allow its address or range with BROWSER_EGRESS_ALLOW (for example BROWSER_EGRESS_ALLOW=10.0.0.0/8).`;

/**
 * For a public host the service could not resolve or reach, the policy is not the cause and
 * BROWSER_EGRESS_ALLOW would not help: the service's own network may have no way out.
 */
const NO_ROUTE_HINT = {
  unresolved:
    'If names that exist are not found either, the machine of the browser service cannot resolve names on the internet: check its DNS and network, or send the browsers out through an upstream proxy (X-Browser-Proxy). BROWSER_EGRESS_ALLOW does not help here.',
  unreachable:
    'If no site answers, the machine of the browser service has no route to the internet: check its network, firewall or upstream proxy. BROWSER_EGRESS_ALLOW does not help here: it only opens private and reserved addresses.',
};

/** The proxy's own answer, from its headers. `detail` is the proxy's account (which address, which range). */
export function egressProblem(url: string, reason: EgressReason, detail: string): PageProblem {
  const host = hostOf(url);
  // The proxy's account: after a colon where it ends a sentence, in brackets inside one.
  const told = detail ? `: ${detail}` : '';
  const aside = detail ? ` (${detail})` : '';
  switch (reason) {
    case 'denied-address':
      return {
        url,
        code: 'egress:denied-address',
        title: `Blocked: ${host} is a private or reserved address`,
        detail: `The browser service refused the connection${told}. Remote browsers may not reach loopback, private, link-local or reserved addresses, nor the service's own machine.`,
        operator: ALLOW_HINT(host),
      };
    case 'unresolved':
      return {
        url,
        code: 'egress:unresolved',
        title: `${host} was not found`,
        detail: `Its name does not resolve to any address${aside}. Check the spelling.`,
        operator: NO_ROUTE_HINT.unresolved,
      };
    case 'unreachable':
      return {
        url,
        code: 'egress:unreachable',
        title: `${host} did not answer`,
        detail: `The browser service found ${host} but could not connect to it${aside}: the site may be down, or not accept connections on that port.`,
        operator: NO_ROUTE_HINT.unreachable,
      };
    case 'proxy-denied':
      return {
        url,
        code: 'egress:proxy-denied',
        title: 'Blocked: your proxy is at a private or reserved address',
        detail: `The browser service refused to connect to the proxy named in X-Browser-Proxy${told}. Remote browsers may not reach loopback, private, link-local or reserved addresses, nor the service's own machine, through a proxy either.`,
        operator:
          'If the proxy is on a network you trust, the operator of the browser service can allow its address or range with BROWSER_EGRESS_ALLOW.',
      };
    case 'proxy-auth':
      return {
        url,
        code: 'egress:proxy-auth',
        title: 'Your proxy refused the login',
        detail: `The proxy named in X-Browser-Proxy did not accept its user name and password${aside}. Check them.`,
        operator: null,
      };
    case 'proxy-refused':
      return {
        url,
        code: 'egress:proxy-refused',
        title: `Your proxy would not connect to ${host}`,
        detail: `The proxy named in X-Browser-Proxy refused the connection${aside}.`,
        operator: null,
      };
    case 'proxy-unreachable':
      return {
        url,
        code: 'egress:proxy-unreachable',
        title: 'Your proxy did not answer',
        detail: `The browser service could not connect to the proxy named in X-Browser-Proxy${aside}: it may be down, or not listen on that port.`,
        operator: null,
      };
  }
}

/** Chromium's words for a connection its proxy would not open: the proxy's reason is not among them. */
export const isTunnelFailure = (code: string): boolean =>
  code === 'net::ERR_TUNNEL_CONNECTION_FAILED' || code === 'net::ERR_PROXY_CONNECTION_FAILED';

/**
 * A failed secure connection, once the service has said how its egress proxy judges the host
 * (lib/portal/service-client/egress.ts): refused by the policy, a name that does not resolve, or
 * allowed, so that the network failed. `code` stays Chromium's.
 */
export function tunnelProblem(url: string, code: string, judged: EgressJudgement): PageProblem {
  const host = hostOf(url);
  switch (judged.verdict) {
    case 'denied-address':
    case 'unresolved':
      return { ...egressProblem(url, judged.verdict, judged.detail), code };
    case 'allowed':
      return {
        url,
        code,
        title: `Could not connect to ${host}`,
        detail: `The egress policy lets the browser reach ${host} (${judged.detail}), but the browser service could not connect to it: the site may be down, not accept connections on that port, or be out of the service's reach.`,
        operator: NO_ROUTE_HINT.unreachable,
      };
    case 'through-proxy':
      return {
        url,
        code,
        title: `Could not connect to ${host}`,
        detail: `The connection through the proxy named in X-Browser-Proxy failed: ${judged.detail}.`,
        operator: null,
      };
  }
}

/**
 * The proxy's account of a main-frame answer, if it gave one. Only a plain-http answer can be the
 * proxy's: the proxy strips its headers from every site's answer it forwards, but inside an https
 * tunnel a site could send them itself, to have a refusal of its own making shown in the portal.
 */
export function egressProblemOf(url: string, headers: Record<string, unknown>): PageProblem | null {
  if (!url.startsWith('http:')) return null;
  const reason = headerOf(headers, 'x-periscope-egress');
  if (!(EGRESS_REASONS as readonly string[]).includes(reason)) return null;
  return egressProblem(url, reason as EgressReason, headerOf(headers, 'x-periscope-egress-detail'));
}

function headerOf(headers: Record<string, unknown>, name: string): string {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return String(value);
  return '';
}

/** A failed navigation, from Chromium's error text. Null when nothing went wrong that a person must know (a cancelled navigation). */
export function navigationProblem(url: string, errorText: string): PageProblem | null {
  const code = /net::ERR_[A-Z0-9_]+/.exec(errorText)?.[0] ?? errorText;
  if (!code || code === 'net::ERR_ABORTED') return null;
  const host = hostOf(url);
  const problem = (title: string, detail: string, operator: string | null = null): PageProblem => ({ url, code, title, detail, operator });
  switch (code) {
    case 'net::ERR_TUNNEL_CONNECTION_FAILED':
    case 'net::ERR_PROXY_CONNECTION_FAILED':
      // The proxy answers a refused secure connection the same way as an unreachable one, and
      // Chromium does not show its answer: say what is certain, and both possibilities otherwise.
      if (isSpecialAddress(host)) {
        return problem(
          `Blocked: ${host} is a private or reserved address`,
          'The browser service refused the connection. Remote browsers may not reach loopback, private, link-local or reserved addresses, nor the service’s own machine.',
          ALLOW_HINT(host),
        );
      }
      return problem(
        `Could not connect to ${host}`,
        `The browser service could not open a connection to ${host}: its name may not exist, the site may not answer, or it points to a private or reserved address, which remote browsers may not reach.`,
        // The service did not say which (lib/portal/live/tabs.ts asks it): both remedies.
        `If no site can be reached, the machine of the browser service has no route to the internet: check its network, firewall or upstream proxy. ${ALLOW_HINT(host)}`,
      );
    case 'net::ERR_NAME_NOT_RESOLVED':
      return problem(`${host} was not found`, 'Its name does not resolve to any address. Check the spelling.');
    case 'net::ERR_CONNECTION_REFUSED':
    case 'net::ERR_CONNECTION_TIMED_OUT':
    case 'net::ERR_TIMED_OUT':
    case 'net::ERR_ADDRESS_UNREACHABLE':
      return problem(`${host} did not answer`, 'The site may be down, or not accept connections on that port.');
    case 'net::ERR_CONNECTION_RESET':
    case 'net::ERR_CONNECTION_CLOSED':
    case 'net::ERR_EMPTY_RESPONSE':
      return problem(`${host} closed the connection`, 'It hung up before sending a page. Try again, or check that the address is right.');
    case 'net::ERR_BLOCKED_BY_ADMINISTRATOR':
      return problem(
        'Blocked by the browser’s policy',
        'Remote browsers may not open files, internal pages or extensions: only web pages, data: and about:blank.',
      );
    case 'net::ERR_TOO_MANY_REDIRECTS':
      return problem(`${host} redirects in a loop`, 'The site keeps sending the browser elsewhere and never to a page.');
    case 'net::ERR_INVALID_RESPONSE':
    case 'net::ERR_INVALID_HTTP_RESPONSE':
      return problem(`${host} sent an answer the browser could not read`, 'It may not be a web server, or not speak http on that port.');
    case 'net::ERR_UNSAFE_PORT':
      return problem(
        `Port ${portOf(url)} is not for web pages`,
        'Browsers refuse ports that belong to other protocols (mail, ssh and the like).',
      );
  }
  if (code.startsWith('net::ERR_CERT_')) {
    return problem(
      `${host}’s certificate is not trusted`,
      'The browser refused the secure connection: the certificate may be expired, self-signed, or issued for another name.',
    );
  }
  if (code.startsWith('net::ERR_SSL_')) {
    return problem(`A secure connection to ${host} failed`, 'The site and the browser could not agree on a secure connection.');
  }
  return problem('The page could not be loaded', `The browser reports ${code}.`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || 'this page';
  } catch {
    return 'this page';
  }
}

function portOf(url: string): string {
  try {
    return new URL(url).port;
  } catch {
    return '';
  }
}

/** `localhost`, or an IP address outside the public unicast space. */
function isSpecialAddress(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(name)) return false;
  return ipaddr.process(name).range() !== 'unicast';
}
