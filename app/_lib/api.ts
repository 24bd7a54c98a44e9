import { NextResponse } from 'next/server.js';
import type { PublicUser } from '#portal/accounts/accounts.ts';
import type { Actor } from '#portal/teams/access.ts';
import { CLIENT_ADDRESS_HEADER } from '#portal/accounts/auth.ts';
import { asDomainError, BadRequest, Forbidden, SignInRequired, toDomainError } from '#portal/errors.ts';
import { allowedOrigins } from '#portal/origins.ts';
import { portal, type Portal } from '#portal/runtime.ts';
import { signedIn } from './session.ts';

type Context<P> = { params: Promise<P> };
type Args<P> = {
  req: Request;
  params: P;
  portal: Portal;
  user: PublicUser;
  actor: Actor;
  body: () => Promise<unknown>;
  address: string | null;
};

/** The client's address as the portal's own server saw it (never a client-sent header: server/portal/main.ts overwrites it). */
const addressOf = (req: Request): string | null => req.headers.get(CLIENT_ADDRESS_HEADER);

/** The one place where an error becomes an API response. */
export function errorResponse(err: unknown): NextResponse {
  if (!asDomainError(err)) portal().log.error({ err: (err as Error)?.message }, 'unexpected error in an API route');
  const e = toDomainError(err);
  return NextResponse.json(e.body(), { status: e.status, headers: { ...e.headers, 'cache-control': 'no-store' } });
}

async function readJson(req: Request): Promise<unknown> {
  if (!(req.headers.get('content-type') ?? '').includes('application/json'))
    throw new BadRequest('send a JSON body with Content-Type: application/json');
  const text = await req.text();
  if (text.length > 64 * 1024) throw new BadRequest('request body is too large');
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new BadRequest('request body is not valid JSON');
  }
}

/** Refuse state changes sent from another site (SameSite cookies already stop most; this stops the rest). */
function checkOrigin(req: Request, p: Portal): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const origin = req.headers.get('origin');
  if (origin && !allowedOrigins(p.config, req.headers.get('host'), req.headers.get('x-forwarded-proto')).includes(origin))
    throw new Forbidden('cross-site request refused');
}

/**
 * Every API route handler of the portal: session required (the server-side check behind
 * proxy.ts), JSON in and out, errors mapped in one place.
 */
export function route<P = Record<string, never>>(handler: (args: Args<P>) => Promise<unknown>) {
  return async (req: Request, ctx: Context<P>): Promise<NextResponse> => {
    try {
      const s = await signedIn();
      if (!s) throw new SignInRequired();
      checkOrigin(req, s.portal);
      const result = await handler({
        req,
        params: await ctx.params,
        portal: s.portal,
        user: s.user,
        actor: s.actor,
        body: () => readJson(req),
        address: addressOf(req),
      });
      return NextResponse.json(result ?? { ok: true }, { headers: { 'cache-control': 'no-store' } });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** The few routes open without a session (see lib/portal/accounts/public-paths.ts). */
export function publicRoute<P = Record<string, never>>(
  handler: (args: { req: Request; params: P; portal: Portal; body: () => Promise<unknown>; address: string | null }) => Promise<unknown>,
) {
  return async (req: Request, ctx?: Context<P>): Promise<NextResponse> => {
    try {
      const p = portal();
      checkOrigin(req, p);
      const params = ((await ctx?.params) ?? {}) as P;
      const result = await handler({ req, params, portal: p, body: () => readJson(req), address: addressOf(req) });
      return NextResponse.json(result ?? { ok: true }, { headers: { 'cache-control': 'no-store' } });
    } catch (err) {
      return errorResponse(err);
    }
  };
}
