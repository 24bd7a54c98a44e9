import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { deleteUpload, listDownloads, listUploads, openDownload, storeUpload } from '#service/browser/files.ts';
import { BadRequest } from '#shared/errors.ts';
import { sendError, sendJson } from '../../http/respond.ts';
import type { Handler, RouteParams } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';
import { requireInstance } from '../instance.ts';

/** The instance the request is about, checked exactly as /json/version checks it (401, 400, 404). */
const instanceOf = (ctx: ServiceContext, req: IncomingMessage) => requireInstance(ctx, req.headers);

const nameOf = (params: RouteParams) => params.name ?? '';

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined) return undefined;
  if (!/^\d{1,15}$/.test(header)) throw new BadRequest('Content-Length must be a number of bytes');
  return Number(header);
}

/** PUT /v0/browser/uploads/{name}: the body's raw bytes become the upload `name` (201 { name, path, size }). */
export const putUpload =
  (ctx: ServiceContext): Handler =>
  async (req: IncomingMessage, res: ServerResponse, _url, params) => {
    try {
      const instance = await instanceOf(ctx, req);
      const file = await storeUpload(instance.browser, nameOf(params), req, ctx.config.browser, declaredLength(req));
      sendJson(res, 201, file);
    } catch (err) {
      // A body we did not read whole is not read at all: close the connection after answering.
      const status = sendError(res, err, req.readableEnded ? {} : { connection: 'close' });
      if (status >= 500) ctx.log.error({ err }, 'upload failed');
    }
  };

/** GET /v0/browser/uploads: { files: [{ name, path, size }] }. */
export const getUploads =
  (ctx: ServiceContext): Handler =>
  async (req, res) => {
    sendJson(res, 200, { files: await listUploads((await instanceOf(ctx, req)).browser) });
  };

/** DELETE /v0/browser/uploads/{name}: 204, or 404 when there is no such upload. */
export const removeUpload =
  (ctx: ServiceContext): Handler =>
  async (req, res, _url, params) => {
    await deleteUpload((await instanceOf(ctx, req)).browser, nameOf(params));
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  };

/** GET /v0/browser/downloads: { files: [{ name, size, modifiedAt, complete }] }. */
export const getDownloads =
  (ctx: ServiceContext): Handler =>
  async (req, res) => {
    sendJson(res, 200, { files: await listDownloads((await instanceOf(ctx, req)).browser) });
  };

/** GET /v0/browser/downloads/{name}: the file's bytes, as an attachment. */
export const getDownload =
  (ctx: ServiceContext): Handler =>
  async (req, res, _url, params) => {
    const file = await openDownload((await instanceOf(ctx, req)).browser, nameOf(params));
    try {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(file.size),
        'content-disposition': `attachment; filename*=UTF-8''${encodeRfc5987(file.name)}`,
        'last-modified': file.modifiedAt.toUTCString(),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      await pipeline(file.stream(), res).catch(() => res.destroy());
    } finally {
      await file.close();
    }
  };

/** RFC 5987 / 8187 value characters: what encodeURIComponent keeps, less ' ( ) *. */
function encodeRfc5987(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
