import { z } from 'zod';

/**
 * `GET /v0/browser/egress?host=` (docs/api.md, "Network egress"): how the service's egress proxy
 * judges a host for one browser, asked by whoever holds the browser when a secure connection
 * failed, which Chromium reports without the proxy's reason. `denied-address`: the policy refuses
 * its address (BROWSER_EGRESS_ALLOW can open it); `unresolved`: the name does not resolve from
 * the service's machine; `allowed`: the policy lets it through, so a failed connection is the
 * network's (the site, or no route out); `through-proxy`: the browser leaves through its tenant's
 * own proxy, whose last failure for the host is the detail.
 */
export const EGRESS_VERDICTS = ['denied-address', 'unresolved', 'allowed', 'through-proxy'] as const;
export type EgressVerdict = (typeof EGRESS_VERDICTS)[number];
export type EgressJudgement = { host: string; verdict: EgressVerdict; detail: string };

/** A host as the proxy receives it: a DNS name, an IPv4 address, or an IPv6 address with or without brackets. */
export const egressHost = z
  .string()
  .min(1, 'host is required')
  .max(255, 'host must be at most 255 characters')
  .regex(
    /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?|\[?[0-9A-Fa-f:.]+\]?)$/,
    'host must be a DNS name or an IP address, without a port',
  );

export const egressJudgement = z.object({
  host: z.string(),
  verdict: z.enum(EGRESS_VERDICTS),
  detail: z.string().max(1000),
});
