import { authenticate } from '#service/keys/auth.ts';
import { BadRequest } from '#shared/errors.ts';
import { PROFILE_NAME_RE } from '#shared/protocol/start.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';

/** GET /v0/profiles: the key's saved profiles (docs/api.md, "Saved profiles"). */
export const listProfiles =
  (ctx: ServiceContext): Handler =>
  async (req, res, url) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    for (const name of url.searchParams.keys()) throw new BadRequest(`unknown query parameter ${name}`);
    const profiles = await ctx.profiles.list(key.id);
    sendJson(res, 200, {
      profiles: profiles.map((p) => ({ name: p.name, bytes: p.bytes, updatedAt: p.updatedAt.toISOString(), inUse: p.inUse })),
      maxBytes: ctx.profiles.maxBytes,
    });
  };

/** DELETE /v0/profiles/{name}: 204; 404 when the key has none of that name; 409 while a persisting browser holds it. */
export const removeProfile =
  (ctx: ServiceContext): Handler =>
  async (req, res, _url, params) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    const name = params.name ?? '';
    if (!PROFILE_NAME_RE.test(name)) throw new BadRequest('a profile name is 1 to 64 of A-Za-z0-9._-');
    await ctx.profiles.remove(key.id, name);
    res.writeHead(204).end();
  };
