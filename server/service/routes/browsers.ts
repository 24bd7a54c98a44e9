import type { BrowserRecord } from '#service/browser/history.ts';
import type { PageState } from '#service/browser/tab-watch.ts';
import { authenticate } from '#service/keys/auth.ts';
import { BadRequest, ValidationFailed } from '#shared/errors.ts';
import { isBrowserId, PROFILE_NAME_RE } from '#shared/protocol/start.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { LiveElsewhere } from '../cluster.ts';
import type { ServiceContext } from '../context.ts';

/** One browser as `GET /v0/browsers` lists it (docs/api.md, "Listing and stopping a key's browsers"). */
export type BrowserView = {
  id: string;
  /** `ending`: its /start socket closed and its processes are being ended. */
  status: 'live' | 'ending' | 'ended';
  startedAt: string;
  endedAt: string | null;
  endReason: string | null;
  page: { url: string; title: string } | null;
  tabs: number;
  /** Recorded: GET /v0/browsers/{id}/recording has what it did. */
  recorded: boolean;
};

const STATUSES = new Set(['live', 'ended']);

/** GET /v0/browsers[?status=live|ended]: the key's live and recently ended browsers, newest first. */
export const listBrowsers =
  (ctx: ServiceContext): Handler =>
  async (req, res, url) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    const wanted = url.searchParams.get('status');
    if (wanted !== null && !STATUSES.has(wanted)) throw new BadRequest('status must be live or ended');
    for (const name of url.searchParams.keys()) if (name !== 'status') throw new BadRequest(`unknown query parameter ${name}`);
    const live = new Map(ctx.fleet.listFor(key.id).map((i) => [i.id, i]));
    await Promise.all([...live.values()].map((i) => i.browser.tabs.refresh()));
    const rows = await ctx.history.list(key.id, Date.now());
    // Several nodes: the history is shared, and the page state of another node's browser is its own.
    const unseen = rows.filter((r) => r.endedAt === null && !live.has(r.id)).map((r) => r.id);
    const elsewhere =
      ctx.cluster && !ctx.cluster.isFromNode(req)
        ? await ctx.cluster.liveElsewhere(req.headers.authorization, unseen)
        : new Map<string, LiveElsewhere>();
    const browsers = rows
      .map((r) => view(r, live.get(r.id)?.browser.tabs.state ?? elsewhere.get(r.id)))
      .filter((b) => wanted === null || (wanted === 'live' ? b.status !== 'ended' : b.status === 'ended'));
    sendJson(res, 200, { browsers });
  };

/** DELETE /v0/browsers/{id}: end one of the key's live browsers now (its /start closes with 4410). */
export const stopBrowser =
  (ctx: ServiceContext): Handler =>
  async (req, res, url, params) => {
    const key = await authenticate(ctx.keys, req.headers.authorization);
    const id = params.id ?? '';
    if (!isBrowserId(id)) throw new BadRequest('malformed browser id: expected the br_... id sent on /start');
    const saveAs = url.searchParams.get('saveAs');
    if (saveAs !== null && !PROFILE_NAME_RE.test(saveAs))
      throw new ValidationFailed(
        [{ field: 'saveAs', message: 'must be a profile name: 1 to 64 of A-Za-z0-9._-' }],
        'the stop options break the rules',
      );
    const instance = ctx.fleet.get(id, key.id);
    // Saved as it ends (docs/api.md, section 7): answered once the profile is saved.
    if (saveAs !== null) await ctx.profiles.saveOnEnd(instance.browser, key.id, saveAs);
    await ctx.fleet.end(instance.id, 'stopped');
    res.writeHead(204).end();
  };

/** A browser's row; `live` is its page state when it is live here or on another node. */
function view(r: BrowserRecord, live: PageState | undefined): BrowserView {
  const state = live ?? r.state;
  return {
    id: r.id,
    status: live ? 'live' : r.endedAt === null ? 'ending' : 'ended',
    startedAt: new Date(r.startedAt).toISOString(),
    endedAt: r.endedAt === null ? null : new Date(r.endedAt).toISOString(),
    endReason: r.endReason,
    page: state.page,
    tabs: state.tabs,
    recorded: r.recordingBytes !== null,
  };
}
