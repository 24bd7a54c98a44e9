import type { BrowserRow, DashboardSnapshot, WaitingRow } from '../protocol/dashboard.ts';
import type { PortalData, Role } from '../data/portal-data.ts';
import type { Logger } from '#shared/log.ts';
import type { EndedTeamBrowser, Starter, TeamBrowsers, WaitingStart } from './team-browsers.ts';
import { rowOf, type HeldRow } from './held-row.ts';
import type { PublicUser } from '../accounts/accounts.ts';
import { atLeast, requireRole, type Actor } from '../teams/access.ts';
import { BadRequest, Conflict, DomainError, Forbidden, NotFound } from '../errors.ts';
import type { Portal } from '../runtime.ts';
import { PROFILE_NAME_RULE, renameBrowserSchema, saveAsProfileSchema, startBrowserSchema } from '../schemas.ts';
import { stopKeyBrowserSavingAs } from '../service-client/key-browsers.ts';
import { parseOrThrow } from '../validation.ts';
import { withTeamKey } from '../keys/vault.ts';
import { openTeamProxy } from '../keys/proxies.ts';
import { MAX_QUEUE_SECONDS } from '#shared/protocol/start.ts';
import type { Located } from './directory.ts';
import type { LiveEnd } from './live-browser.ts';
import { endedBrowsers, scriptBrowserName } from './ended-browsers.ts';

/** How far back the dashboard lists ended browsers. */
const HISTORY_MS = 24 * 3_600_000;
/** The most ended browsers the dashboard lists. */
const HISTORY_ROWS = 100;
/** How long the records of ended browsers and of who had control of them are kept: as long as the
 * longest recording retention worth having, since a recording is named by the one and its control
 * changes are told by the other (decision 0119). Each record added takes the ones older along. */
const KEPT_MS = 31 * 24 * 3_600_000;

/**
 * Record what happens to the portal's browsers, in one place: every end in the team's history and
 * audit log (who stopped it, or why it ended), every handover of control between two people, and
 * who had control when, by the service's browser id, for the inspector's timeline of its recording.
 */
export function recordBrowserEvents(instances: TeamBrowsers, data: PortalData, log: Logger): void {
  const failed = (instanceId: string) => (err: Error) => log.error({ err, instanceId }, 'could not record a browser event');
  instances.on('ended', (e) => recordEnded(data, e, log));
  instances.on('handover', (i, h) => {
    data
      .audit(
        {
          teamId: i.teamId,
          actorId: h.to.userId ?? null,
          action: h.taken ? 'control.taken' : 'control.handed',
          subject: i.name,
          detail: { instance: i.id, from: h.from.name, to: h.to.name },
        },
        Date.now(),
      )
      .catch(failed(i.id));
  });
  // Changes of control are written one after another: on a store with several connections two
  // writes at once could otherwise land in the other order (within one millisecond, order is all).
  let controlWrites: Promise<void> = Promise.resolve();
  instances.on('controller', (i, holder) => {
    const at = Date.now();
    const entry = { browserId: i.live.held.id, teamId: i.teamId, at, userId: holder?.userId ?? null, name: holder?.name ?? null };
    controlWrites = controlWrites.then(() => data.recordControl(entry, at - KEPT_MS)).catch(failed(i.id));
  });
}

/**
 * Record one end in the team's history and audit log. A script's browser the portal only watched
 * did not end (the portal let go of it), and an end another node recorded already is not recorded twice.
 */
export function recordEnded(data: PortalData, e: EndedTeamBrowser, log: Logger): void {
  if (e.attached || e.recordedElsewhere) return;
  const failed = (err: Error) => log.error({ err, instanceId: e.id }, 'could not record a browser event');
  data
    .recordInstance(
      {
        id: e.id,
        teamId: e.teamId,
        name: e.name,
        startedBy: e.startedBy.userId,
        startedByName: e.startedBy.name,
        keyName: e.keyName,
        startedAt: e.startedAt,
        endedAt: e.endedAt,
        reason: e.reason,
        message: e.message,
        browserId: e.browserId,
      },
      Date.now() - KEPT_MS,
    )
    .catch(failed);
  // A person's stop is theirs; any other end (idle, the service, a shutdown) has no actor, only its reason.
  data
    .audit(
      {
        teamId: e.teamId,
        actorId: e.stoppedBy?.userId ?? null,
        action: e.stoppedBy ? 'browser.stopped' : 'browser.ended',
        subject: e.name,
        detail: { instance: e.id, reason: e.reason, message: e.message },
      },
      e.endedAt,
    )
    .catch(failed);
}

/** A person as the team's browsers name them: their name, else their address. */
const starterOf = (user: PublicUser): Starter => ({ userId: user.id, name: user.name || user.email });

/** What a person sees of a team browser held by any node. */
function view(i: HeldRow, canStop: boolean): BrowserRow {
  return {
    id: i.id,
    name: i.name,
    startedBy: { id: i.startedBy.userId, name: i.startedBy.name },
    keyName: i.keyName,
    startedAt: i.startedAt,
    title: i.title,
    url: i.url,
    viewers: i.viewers,
    canStop,
    attached: i.attached,
  };
}

/**
 * Start a browser for the team with the given key (default: the team's default key), for the
 * lifetime asked (default: the service's longest) and through one of the team's proxies if one is
 * named. The start waits for room (`/start?queue=`) up to the service's longest wait: meanwhile the
 * dashboard shows it waiting, and it can be cancelled (cancelWaiting).
 */
export async function startBrowser(p: Portal, actor: Actor, user: PublicUser, teamId: string, input: unknown): Promise<BrowserRow> {
  await requireRole(p.data, actor, teamId, 'member');
  const { name, keyId, lifetimeSeconds, proxyId, profile, persist } = parseOrThrow(startBrowserSchema, input);
  const keys = await p.data.keys(teamId);
  const key = keyId ? keys.find((k) => k.id === keyId && !k.revokedAt) : keys.find((k) => k.isDefault && !k.revokedAt);
  if (!key)
    throw new BadRequest(
      keyId ? "that key is not one of this team's live keys" : 'this team has no default API key yet; add one on the API keys page',
    );
  // Another team's proxy, or one deleted meanwhile, is not found before anything is started.
  const proxy = proxyId ? await openTeamProxy(p.vault, actor, teamId, proxyId) : null;
  const instance = await withTeamKey(p.vault, actor, teamId, key.id, 'browser', (token) =>
    p.live.start({
      teamId,
      user: starterOf(user),
      keyId: key.id,
      keyName: key.name,
      apiKey: token,
      name,
      options: {
        lifetimeSeconds,
        queueSeconds: MAX_QUEUE_SECONDS,
        ...(proxy ? { proxyUrl: proxy.url } : {}),
        ...(profile ? { profile, persist: persist === true } : {}),
      },
    }),
  );
  // Another node may be asked for it next (the page it opens, through the load balancer).
  await p.browsers.settle();
  await p.data.audit(
    {
      teamId,
      actorId: actor.userId,
      action: 'browser.started',
      subject: instance.name,
      detail: {
        instance: instance.id,
        key: key.name,
        ...(proxy ? { proxy: proxy.name } : {}),
        ...(lifetimeSeconds ? { lifetimeSeconds } : {}),
        ...(profile ? { profile, persist: persist === true } : {}),
      },
    },
    instance.startedAt,
  );
  return view(rowOf(instance, p.browsers.nodeId), true);
}

/** What a person sees of a start waiting for room. */
function waitingView(w: WaitingStart, actor: Actor, role: Role): WaitingRow {
  return {
    id: w.id,
    name: w.name,
    startedBy: { id: w.startedBy.userId, name: w.startedBy.name },
    keyName: w.keyName,
    since: w.since,
    canCancel: atLeast(role, 'admin') || w.startedBy.userId === actor.userId,
  };
}

/**
 * Give up a start that waits for room (its starter, owners and admins): its pending /start is
 * closed, so the service starts nothing for it. False when this node holds no such waiting start.
 */
async function cancelWaiting(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<boolean> {
  const waiting = p.live.getWaiting(instanceId);
  if (!waiting || waiting.teamId !== teamId) return false;
  const { role } = await requireRole(p.data, actor, teamId, 'member');
  if (!waitingView(waiting, actor, role).canCancel)
    throw new Forbidden('only the person who started this browser, owners and admins can cancel it');
  return p.live.cancelWaiting(instanceId);
}

export async function listBrowsers(p: Portal, actor: Actor, teamId: string): Promise<BrowserRow[]> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  return (await p.browsers.listForTeam(teamId)).map((i) => view(i, mayStop(i, actor, membership.role)));
}

/**
 * One of the team's portal-held browsers, on whichever node holds it, for a member; `canStop`: they
 * started it, or they are an owner or admin (a script's browser the portal watches: owners and
 * admins only, as for any of them).
 */
export async function mine(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<{ at: Located; canStop: boolean }> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  const at = await p.browsers.find(instanceId);
  if (!at || at.row.teamId !== teamId) throw new NotFound('no such browser');
  return { at, canStop: mayStop(at.row, actor, membership.role) };
}

const mayStop = (i: HeldRow, actor: Actor, role: Role) => atLeast(role, 'admin') || (!i.attached && i.startedBy.userId === actor.userId);

/**
 * Watch a browser a script started with one of the team's keys (one the dashboard lists beside the
 * portal's own): the portal attaches to it through the service's public interface, like a second
 * client, and it opens in the live view like any team browser. Any member may watch.
 */
export async function watchKeyBrowser(p: Portal, actor: Actor, user: PublicUser, teamId: string, browserId: string): Promise<BrowserRow> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  const found = (await p.keyBrowsers.list(actor, teamId, { fresh: true })).find((b) => b.id === browserId);
  if (!found) throw new NotFound('no such live browser among the team keys’ browsers');
  // Watched already, through this node or another: the same one.
  const watched = await p.browsers.findByBrowserId(teamId, browserId);
  if (watched) return view(watched.row, mayStop(watched.row, actor, membership.role));
  const instance = await withTeamKey(p.vault, actor, teamId, found.keyId, 'browser', (token) =>
    p.live.attach({
      teamId,
      user: starterOf(user),
      keyId: found.keyId,
      keyName: found.keyName,
      apiKey: token,
      browserId,
      name: scriptBrowserName(found),
    }),
  );
  if (!instance) throw new NotFound('that browser has ended');
  await p.browsers.settle();
  await p.data.audit(
    {
      teamId,
      actorId: actor.userId,
      action: 'browser.watched',
      subject: instance.name,
      detail: { instance: browserId, key: found.keyName },
    },
    Date.now(),
  );
  const row = rowOf(instance, p.browsers.nodeId);
  return view(row, mayStop(row, actor, membership.role));
}

export async function getBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<BrowserRow> {
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  return view(at.row, canStop);
}

/**
 * The starter, owners and admins may stop an instance the portal holds. A browser started with one
 * of the team's keys elsewhere (a script) only owners and admins may stop: its holder loses it.
 */
export async function stopBrowser(p: Portal, actor: Actor, user: PublicUser, teamId: string, instanceId: string): Promise<void> {
  if (await cancelWaiting(p, actor, teamId, instanceId)) return;
  if (!(await p.browsers.find(instanceId))) return stopKeyBrowser(p, actor, teamId, instanceId);
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  if (!canStop) throw new Forbidden('only the person who started this browser, owners and admins can stop it');
  // A script's browser that the portal watches: stopping it ends the browser itself (its owner loses it).
  if (at.row.attached) await stopKeyBrowser(p, actor, teamId, at.row.browserId);
  await p.browsers.stop(at, { reason: 'stopped', message: `stopped by ${starterOf(user).name}` }, starterOf(user));
}

/**
 * Stop a team browser and save its state as the key's profile `name` (issue #27): who may stop it
 * may save it. The service ends it and answers once the profile is saved (`DELETE
 * /v0/browsers/{id}?saveAs=`); its refusals come back in words: 409 when another persisting
 * browser holds that profile or this one saves into its own, 400 naming `name`. Audited as
 * `profile.saved`, beside the browser's own end.
 */
export async function stopAndSaveBrowser(
  p: Portal,
  actor: Actor,
  user: PublicUser,
  teamId: string,
  instanceId: string,
  input: unknown,
): Promise<{ profile: string }> {
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  if (!canStop) throw new Forbidden('only the person who started this browser, owners and admins can stop it');
  const { name } = parseOrThrow(saveAsProfileSchema, input);
  const key = (await p.data.keys(teamId)).find((k) => k.id === at.row.keyId);
  if (!key) throw new NotFound("this browser's key is no longer the team's");
  const outcome = await withTeamKey(p.vault, actor, teamId, key.id, 'browser', (token) =>
    stopKeyBrowserSavingAs(p.config.serviceUrl, token, at.row.browserId, name),
  );
  if (outcome === 'not-found') throw new NotFound('this browser has ended already');
  if (outcome === 'in-use')
    throw new Conflict(
      `Cannot save into "${name}": another browser that saves into it is running, or this browser was started to save into its own profile.`,
    );
  if (outcome === 'bad-name')
    throw new DomainError('invalid', PROFILE_NAME_RULE, { issues: [{ field: 'name', message: PROFILE_NAME_RULE }] });
  if (outcome === 'key-refused')
    throw new DomainError('key_refused', `The browser service refused the key "${key.name}" (revoked there?).`);
  await p.data.audit(
    {
      teamId,
      actorId: actor.userId,
      action: 'profile.saved',
      subject: name,
      detail: { key: key.name, keyId: key.id, instance: at.row.id },
    },
    Date.now(),
  );
  await p.browsers.stop(
    at,
    { reason: 'stopped', message: `stopped by ${starterOf(user).name}, saved as profile ${name}` },
    starterOf(user),
  );
  return { profile: name };
}

async function stopKeyBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<void> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  if (!atLeast(membership.role, 'admin')) {
    const known = (await p.keyBrowsers.list(actor, teamId)).some((b) => b.id === instanceId);
    if (!known) throw new NotFound('no such browser');
    throw new Forbidden('only owners and admins can stop a browser started with a team key outside the portal');
  }
  const stopped = await p.keyBrowsers.stop(actor, teamId, instanceId);
  if (!stopped) throw new NotFound('no such browser');
  await p.data.audit(
    {
      teamId,
      actorId: actor.userId,
      action: 'browser.stopped',
      subject: stopped.title || stopped.url || stopped.id,
      detail: { instance: stopped.id, key: stopped.keyName, startedThrough: 'api' },
    },
    Date.now(),
  );
  p.browsers.changed(teamId);
}

export async function renameBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string, input: unknown): Promise<BrowserRow> {
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  if (!canStop) throw new Forbidden('only the person who started this browser, owners and admins can rename it');
  const { name } = parseOrThrow(renameBrowserSchema, input);
  await p.browsers.rename(at, name);
  await p.browsers.settle();
  return view({ ...at.row, name }, canStop);
}

/** End every portal browser of the teams (a deleted team's), on whichever node holds each. */
export async function stopTeamBrowsers(p: Portal, teamIds: readonly string[], end: LiveEnd): Promise<void> {
  for (const teamId of teamIds) {
    const rows = await p.browsers.listForTeam(teamId).catch(() => []);
    for (const row of rows) {
      const at = await p.browsers.find(row.id).catch(() => null);
      if (at) await p.browsers.stop(at, end).catch((err: unknown) => p.log.warn({ err, instanceId: row.id }, 'could not stop a browser'));
    }
  }
}

/** Everything the team dashboard shows: the team's browsers, usage against the limits, the last day's ended ones. */
export async function dashboardSnapshot(p: Portal, actor: Actor, teamId: string): Promise<DashboardSnapshot> {
  const { role } = await requireRole(p.data, actor, teamId, 'member');
  const admin = atLeast(role, 'admin');
  const rows = await p.browsers.listForTeam(teamId);
  // The service's own ids (br_…) of the browsers the portal holds, on any node: those are listed above already.
  const held = new Set(rows.map((i) => i.browserId));
  const since = Date.now() - HISTORY_MS;
  const [service, history, fromKeys, usage] = await Promise.all([
    p.serviceHealth.read(),
    p.data.instanceHistory(teamId, since, HISTORY_ROWS),
    p.keyBrowsers.all(actor, teamId),
    p.browsers.usage(teamId, actor.userId),
  ]);
  return {
    instances: rows.map((i) => view(i, mayStop(i, actor, role))),
    waiting: p.live.waitingForTeam(teamId).map((w) => waitingView(w, actor, role)),
    // What the portal holds is listed above, with more to do; the rest of the team's keys' browsers here.
    fromKeys: fromKeys
      .filter((b) => b.live && !held.has(b.id))
      .map((b) => ({ id: b.id, keyName: b.keyName, startedAt: b.startedAt, title: b.title, url: b.url, tabs: b.tabs, canStop: admin })),
    capacity: {
      team: { used: usage.team, limit: p.live.limits.perTeam },
      mine: { used: usage.user, limit: p.live.limits.perUser },
      service: service?.browsers ? { used: service.browsers.live, limit: service.browsers.capacity } : null,
    },
    // The portal's own ended browsers and the scripts' ones, each once (decision 0112).
    history: endedBrowsers(history, fromKeys, { since, limit: HISTORY_ROWS, held }),
  };
}
