import type { IncomingMessage } from 'node:http';
import { bearerMatches } from '#shared/bearer.ts';
import { BadRequest, NotFound, Unauthorized } from '#shared/errors.ts';
import { KEY_ID_RE, OPERATOR_MAX_BODY_BYTES, keyChangeSchema, newOperatorKeySchema, parseOperatorBody } from '#shared/protocol/operator.ts';
import { OperatorKeys } from '#service/keys/operator.ts';
import { readBody } from '../../http/body.ts';
import type { Handler, RouteParams } from '../../http/router.ts';
import { sendJson } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

/**
 * The operator interface for keys (docs/api.md, "Operator interface"; decision 0107). Only the
 * operator token opens it: a tenant's API key is just a wrong token here. Off (404) without one.
 */
export function operatorRoutes(ctx: ServiceContext): Record<'list' | 'create' | 'get' | 'change' | 'revoke', Handler> {
  const keys = new OperatorKeys(ctx.keys);
  const token = ctx.config.operatorToken;
  const guard = (req: IncomingMessage) => {
    if (!token) throw new NotFound('the operator interface is off: set SERVICE_OPERATOR_TOKEN to turn it on');
    if (!bearerMatches(req.headers.authorization, token))
      throw new Unauthorized('the operator interface needs Authorization: Bearer <SERVICE_OPERATOR_TOKEN>');
  };
  const idOf = (params: RouteParams) => {
    const id = params.id ?? '';
    if (!KEY_ID_RE.test(id)) throw new BadRequest('a key id is 16 hexadecimal characters (the part after psk_ in the key)');
    return id;
  };
  return {
    list: async (req, res) => {
      guard(req);
      sendJson(res, 200, { keys: await keys.list() });
    },
    create: async (req, res) => {
      guard(req);
      const body = parseOperatorBody(newOperatorKeySchema, await readBody(req, OPERATOR_MAX_BODY_BYTES));
      sendJson(res, 201, await keys.create(body), { 'cache-control': 'no-store' });
    },
    get: async (req, res, _url, params) => {
      guard(req);
      sendJson(res, 200, { key: await keys.get(idOf(params)) });
    },
    change: async (req, res, _url, params) => {
      guard(req);
      const id = idOf(params);
      const body = parseOperatorBody(keyChangeSchema, await readBody(req, OPERATOR_MAX_BODY_BYTES));
      sendJson(res, 200, { key: await keys.change(id, body) });
    },
    revoke: async (req, res, _url, params) => {
      guard(req);
      sendJson(res, 200, await keys.revoke(idOf(params)));
    },
  };
}
