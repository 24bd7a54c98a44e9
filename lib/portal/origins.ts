import type { PortalConfig } from './config.ts';

/**
 * The origins a state-changing request or a socket may come from: the portal's public address
 * (NEXTAUTH_URL), and the address the request itself was sent to (its Host, with the scheme a
 * trusted proxy reports). A browser always sends the page's own Origin, and a site cannot make a
 * browser send another site's Host, so a request whose Origin is neither is cross-site. The second
 * one is what lets a portal node be reached at its own address as well as through the balancer.
 */
export function allowedOrigins(
  config: Pick<PortalConfig, 'publicUrl' | 'trustProxy'>,
  host: string | null | undefined,
  forwardedProto: string | null | undefined,
): string[] {
  const origins = [new URL(config.publicUrl).origin];
  if (host) {
    const proto = (config.trustProxy ? (forwardedProto ?? '').split(',')[0]?.trim() : '') || 'http';
    origins.push(`${proto}://${host}`);
  }
  return origins;
}
