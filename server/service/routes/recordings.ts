import { pipeline } from 'node:stream/promises';
import { readEvents, readScreen, screenSize } from '#service/browser/recording/reader.ts';
import { searchRecordings } from '#service/browser/recording/search.ts';
import { parseEventQuery } from '#shared/protocol/recording-search.ts';
import { authenticate } from '#service/keys/auth.ts';
import { BadRequest, NotFound } from '#shared/errors.ts';
import { isBrowserId } from '#shared/protocol/start.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler, RouteParams } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';

/** The key's recorded browser that `params.id` names: 400 malformed, 404 not this key's or not recorded. */
async function recordedBrowser(ctx: ServiceContext, authorization: string | undefined, params: RouteParams) {
  const key = await authenticate(ctx.keys, authorization);
  const id = params.id ?? '';
  if (!isBrowserId(id)) throw new BadRequest('malformed browser id: expected the br_... id sent on /start');
  const record = await ctx.history.get(id, key.id);
  if (!record || record.recordingBytes === null) throw new NotFound('no recording of that browser for this API key');
  return { record, dir: ctx.recordings.folder(id), live: ctx.recordings.isRecording(id) };
}

/** GET /v0/browsers/{id}/recording[?after=SEQ]: what the recording holds, events after `after` (docs/api.md, "Session recordings"). */
export const getRecording =
  (ctx: ServiceContext): Handler =>
  async (req, res, url, params) => {
    const { record, dir, live } = await recordedBrowser(ctx, req.headers.authorization, params);
    const afterText = url.searchParams.get('after') ?? '0';
    if (!/^\d{1,15}$/.test(afterText)) throw new BadRequest('after must be the seq of an event already read (a whole number)');
    for (const name of url.searchParams.keys()) if (name !== 'after') throw new BadRequest(`unknown query parameter ${name}`);
    const events = await readEvents(dir, Number(afterText));
    sendJson(res, 200, {
      id: record.id,
      startedAt: new Date(record.startedAt).toISOString(),
      endedAt: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
      live,
      screenBytes: await screenSize(dir),
      events,
    });
  };

/** GET /v0/browsers/{id}/recording/screen: the screen's JPEG frames back to back; a `Range` of bytes gives one frame (206). */
export const getRecordingScreen =
  (ctx: ServiceContext): Handler =>
  async (req, res, _url, params) => {
    const { dir } = await recordedBrowser(ctx, req.headers.authorization, params);
    const size = await screenSize(dir);
    const range = req.headers.range;
    let [start, end] = [0, size - 1];
    if (range !== undefined) {
      const m = /^bytes=(\d{1,15})-(\d{1,15})$/.exec(range);
      if (!m) throw new BadRequest('Range must be bytes=FIRST-LAST');
      [start, end] = [Number(m[1]), Number(m[2])];
      if (start > end || end >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
    }
    const headers = {
      'content-type': 'application/octet-stream',
      'content-length': String(Math.max(0, end - start + 1)),
      'accept-ranges': 'bytes',
    };
    if (size === 0) return void res.writeHead(200, headers).end();
    if (range !== undefined) res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}` });
    else res.writeHead(200, headers);
    await pipeline(readScreen(dir, start, end), res).catch(() => res.destroy());
  };

/** GET /v0/recordings/events?q&type&status&host&since&until&limit: the key's recorded events that match, newest first. */
export const searchRecordedEvents =
  (ctx: ServiceContext): Handler =>
  async (req, res, url) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    const query = parseEventQuery(url.searchParams);
    const now = Date.now();
    const sessions = (await ctx.history.list(key.id, now))
      .filter((b) => b.recordingBytes !== null)
      .map((b) => ({ id: b.id, startedAt: b.startedAt, endedAt: b.endedAt, dir: ctx.recordings.folder(b.id) }));
    const { matches, sessions: searched, truncated } = await searchRecordings(sessions, query, now);
    sendJson(res, 200, {
      matches: matches.map((m) => ({
        browser: m.browser,
        browserStartedAt: new Date(m.browserStartedAt).toISOString(),
        at: new Date(m.at).toISOString(),
        event: m.event,
      })),
      sessions: searched,
      truncated,
    });
  };
