import type { FieldIssue } from '../errors.ts';

/**
 * The tenant's own upstream proxy, named in the `X-Browser-Proxy` header of `/start` and of the
 * page actions (docs/api.md, "Your own upstream proxy"; decision 0104):
 * `http://user:pass@host:port`, `https://…` or `socks5://…`, the port always written out.
 */
export const PROXY_HEADER = 'x-browser-proxy';

/** The longest header value read; a longer one is refused before it is parsed. */
export const PROXY_HEADER_MAX_LENGTH = 1024;

export type ProxyScheme = 'http' | 'https' | 'socks5';

/**
 * A parsed upstream proxy. Its credentials are private fields: they are not enumerable, so no
 * logger, JSON answer or `inspect` ever prints them; only the code that logs in to the proxy reads
 * them, through `basicAuthorization()` and `credentials()`. `toString()` is the address without them.
 */
export class UpstreamProxy {
  readonly scheme: ProxyScheme;
  /** A host name in lower case, an IPv4 address, or an IPv6 address without brackets. */
  readonly host: string;
  readonly port: number;
  readonly #username: string | null;
  readonly #password: string;

  constructor(scheme: ProxyScheme, host: string, port: number, username: string | null = null, password = '') {
    this.scheme = scheme;
    this.host = host;
    this.port = port;
    this.#username = username;
    this.#password = password;
  }

  get hasCredentials(): boolean {
    return this.#username !== null;
  }

  /** The credentials, for a SOCKS5 login (RFC 1929); null when the proxy was named without them. */
  credentials(): { username: string; password: string } | null {
    return this.#username === null ? null : { username: this.#username, password: this.#password };
  }

  /** `Basic …` for Proxy-Authorization, or null when the proxy was named without credentials. */
  basicAuthorization(): string | null {
    if (this.#username === null) return null;
    return `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${this.#username}:${this.#password}`)))}`;
  }

  /** `scheme://host:port`, never the credentials. */
  toString(): string {
    return `${this.scheme}://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

const SCHEMES: readonly ProxyScheme[] = ['http', 'https', 'socks5'];
/** RFC 3986 userinfo: unreserved, percent-encoded, sub-delims and ':'. */
const USERINFO = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

type Parsed = { ok: true; proxy: UpstreamProxy | null } | { ok: false; issues: FieldIssue[] };

/**
 * Read the header's value: absent is no proxy; anything else must be a whole proxy address by the
 * rules above, else one issue naming the header. The message never repeats the value, which may
 * hold a password.
 */
export function parseUpstreamProxy(value: string | string[] | undefined): Parsed {
  if (value === undefined) return { ok: true, proxy: null };
  const bad = (message: string): Parsed => ({ ok: false, issues: [{ field: 'X-Browser-Proxy', message }] });
  if (Array.isArray(value)) return bad('must be given once');
  const text = value.trim();
  if (text.length > PROXY_HEADER_MAX_LENGTH) return bad(`must be at most ${PROXY_HEADER_MAX_LENGTH} characters`);
  const form = 'must be scheme://[user:password@]host:port with the scheme http, https or socks5';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:([^@/?#\s]*)@)?(\[[^\]\s/]*\]|[^:@/?#\s[\]]*)(?::(\d*))?(\/?)$/.exec(text);
  if (!m) return bad(form);
  const [, schemeText = '', userinfo, hostText = '', portText] = m;
  const scheme = schemeText.toLowerCase() as ProxyScheme;
  if (!SCHEMES.includes(scheme)) return bad(`has the scheme "${schemeText.slice(0, 20)}"; ${form}`);
  const host = checkHost(hostText);
  if (!host) return bad(`has no valid host name or IP address; ${form}`);
  if (portText === undefined || portText === '') return bad(`must name its port (host:port); ${form}`);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
  if (port < 1 || port > 65535) return bad('must have a port from 1 to 65535');
  if (userinfo === undefined) return { ok: true, proxy: new UpstreamProxy(scheme, host, port) };
  if (!USERINFO.test(userinfo))
    return bad('has characters not allowed in its user name or password: percent-encode them (RFC 3986), e.g. @ as %40');
  const colon = userinfo.indexOf(':');
  const username = decode(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = decode(colon < 0 ? '' : userinfo.slice(colon + 1));
  if (username === null || password === null) return bad('has a user name or password that is not UTF-8 once percent-decoded');
  if (username.length === 0) return bad('has an empty user name before the "@"');
  // RFC 1929 gives each a length byte; Basic has no limit, the one rule keeps both schemes alike.
  if (utf8Length(username) > 255 || utf8Length(password) > 255) return bad('has a user name or password longer than 255 bytes');
  if ([...(username + password)].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return bad('has a control character in its user name or password');
  // Basic authentication cannot carry a ':' in the user name.
  if (username.includes(':')) return bad('has a ":" in its user name');
  return { ok: true, proxy: new UpstreamProxy(scheme, host, port, username, password) };
}

function checkHost(text: string): string | null {
  if (text.startsWith('[')) {
    const inner = text.slice(1, -1);
    if (!/^[0-9A-Fa-f:.]+$/.test(inner)) return null;
    try {
      return new URL(`http://[${inner}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
  }
  const host = text.toLowerCase().replace(/\.$/, '');
  if (IPV4.test(host)) return host;
  if (/^[\d.]+$/.test(host)) return null; // digits and dots but no valid IPv4 address
  if (host.length === 0 || host.length > 253) return null;
  return host.split('.').every((label) => LABEL.test(label)) ? host : null;
}

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
