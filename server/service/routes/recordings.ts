import type { IncomingMessage } from 'node:http';
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

/** The node a recording was made on when it is another node of the cluster (its files are on that node's disk). */
function recordedElsewhere(ctx: ServiceContext, req: IncomingMessage, nodeId: string): string | null {
  return ctx.cluster && !ctx.cluster.isFromNode(req) && nodeId !== ctx.cluster.nodeId ? nodeId : null;
}

/**
 * The key's recorded browser that `params.id` names: 400 malformed, 404 not this key's or not
 * recorded; `elsewhere` names the node that holds it when that is not this one.
 */
async function recordedBrowser(ctx: ServiceContext, req: IncomingMessage, params: RouteParams) {
  const key = await authenticate(ctx.keys, req.headers.authorization);
  const id = params.id ?? '';
  if (!isBrowserId(id)) throw new BadRequest('malformed browser id: expected the br_... id sent on /start');
  const record = await ctx.history.get(id, key.id);
  if (!record || record.recordingBytes === null) throw new NotFound('no recording of that browser for this API key');
  return {
    record,
    dir: ctx.recordings.folder(id),
    live: ctx.recordings.isRecording(id),
    elsewhere: recordedElsewhere(ctx, req, record.nodeId),
  };
}

/** GET /v0/browsers/{id}/recording[?after=SEQ]: what the recording holds, events after `after` (docs/api.md, "Session recordings"). */
export const getRecording =
  (ctx: ServiceContext): Handler =>
  async (req, res, url, params) => {
    const { record, dir, live, elsewhere } = await recordedBrowser(ctx, req, params);
    if (elsewhere) return ctx.cluster!.forwardTo(elsewhere, req, res);
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
    const { dir, elsewhere } = await recordedBrowser(ctx, req, params);
    if (elsewhere) return ctx.cluster!.forwardTo(elsewhere, req, res);
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
    const recorded = (await ctx.history.list(key.id, now)).filter((b) => b.recordingBytes !== null);
    // Several nodes: each recording is on the disk of the node that made it, and each node searches its own.
    const here = recorded.filter((b) => !ctx.cluster || b.nodeId === ctx.cluster.nodeId);
    const sessions = here.map((b) => ({ id: b.id, startedAt: b.startedAt, endedAt: b.endedAt, dir: ctx.recordings.folder(b.id) }));
    const local = await searchRecordings(sessions, query, now);
    const answer: RecordingSearchAnswer = {
      matches: local.matches.map((m) => ({
        browser: m.browser,
        browserStartedAt: new Date(m.browserStartedAt).toISOString(),
        at: new Date(m.at).toISOString(),
        event: m.event,
      })),
      sessions: local.sessions,
      truncated: local.truncated,
    };
    const others = [...new Set(recorded.filter((b) => recordedElsewhere(ctx, req, b.nodeId)).map((b) => b.nodeId))];
    if (ctx.cluster && others.length) {
      // A node that cannot be asked leaves its matches out, and the answer says it is not whole.
      for (const { body } of await ctx.cluster.ask(others, `${url.pathname}${url.search}`, req.headers.authorization)) {
        const theirs = body as Partial<RecordingSearchAnswer> | null;
        if (!theirs || !Array.isArray(theirs.matches)) {
          answer.truncated = true;
          continue;
        }
        answer.matches.push(...theirs.matches);
        answer.sessions += Number(theirs.sessions) || 0;
        answer.truncated ||= theirs.truncated === true;
      }
      answer.matches.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
      answer.matches.length = Math.min(answer.matches.length, query.limit);
    }
    sendJson(res, 200, answer);
  };

type RecordingSearchAnswer = {
  matches: { browser: string; browserStartedAt: string; at: string; event: unknown }[];
  sessions: number;
  truncated: boolean;
};
