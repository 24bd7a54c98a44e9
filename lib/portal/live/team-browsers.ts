import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { BadRequest, DomainError, ServiceUnavailable, TooManyRequests } from '#shared/errors.ts';
import { Conflict } from '../errors.ts';
import { attachBrowser, holdBrowser, StartCancelled, StartRefused, type HoldOptions } from '../service-client/browser.ts';
import { judgeEgress } from '../service-client/egress.ts';
import { LiveBrowser, type ControlHandover, type ControlHolder, type LiveEnd } from './live-browser.ts';

export type Starter = { userId: string; name: string };

/** The portal's hold on one service instance, for a team. */
export type TeamBrowser = {
  readonly id: string;
  readonly teamId: string;
  readonly startedBy: Starter;
  readonly keyId: string;
  readonly keyName: string;
  name: string;
  readonly startedAt: number;
  readonly live: LiveBrowser;
  /**
   * A browser a script started with one of the team's keys, which the portal only watches: letting
   * go of it (stop, idle) leaves it running for its owner, and it is no browser of the portal's.
   */
  readonly attached: boolean;
};

export type EndedTeamBrowser = {
  id: string;
  /** The service's id of the browser (br_…). */
  browserId: string;
  teamId: string;
  name: string;
  startedBy: Starter;
  keyName: string;
  startedAt: number;
  endedAt: number;
  reason: string;
  message: string;
  /** Who stopped it, when a person did. */
  stoppedBy: Starter | null;
  /** The portal only watched it (TeamBrowser.attached): its end is the portal letting go. */
  attached: boolean;
  /** Another portal node already recorded this end (it took the browser as lost, decision 0095). */
  recordedElsewhere: boolean;
};

/** Why a browser is stopped on purpose: what the record says, who asked, and whether it is recorded already. */
export type StopReason = LiveEnd & { by?: Starter; recordedElsewhere?: boolean };

export type TeamBrowsersOptions = {
  serviceUrl: string;
  idleMs: number;
  maxPerUser: number;
  maxPerTeam: number;
  log: Logger;
  /** The portal's browsers of the team and of the person on other portal nodes, counted into the limits. */
  elsewhere?: (teamId: string, userId: string) => Promise<{ team: number; user: number }>;
};

/**
 * A start that has no browser yet: the service keeps it waiting for room (`/start?queue=`), or is
 * still starting it. Listed once it has waited `WAITING_SHOWN_AFTER_MS`, so that an ordinary start
 * does not flash by as waiting; cancelling it closes its pending /start.
 */
export type WaitingStart = {
  readonly id: string;
  readonly teamId: string;
  readonly startedBy: Starter;
  readonly keyName: string;
  readonly name: string;
  readonly since: number;
  /** Shown on dashboards (it has waited long enough to be waiting rather than starting). */
  shown: boolean;
  readonly abort: AbortController;
};

/** A start without its browser after this long is shown as waiting for room. */
export const WAITING_SHOWN_AFTER_MS = 1000;

export const newInstanceId = (): string => `inst_${randomBytes(12).toString('base64url')}`;

/**
 * The team browsers: the service instances the portal holds for its users (words: an *instance* is
 * the service's Chromium behind one /start socket; a *team browser* is the portal's hold on one, with
 * its team, name and viewers; a *browser row* is what the dashboard shows of it). Each keeps its /start socket open for as long as it
 * is wanted, whether or not a page is watching, and ends when stopped, after sitting with no viewer
 * for the idle time, or when the service ends it. Every end is announced with its reason.
 */
export class TeamBrowsers extends EventEmitter<{
  change: [teamId: string];
  ended: [EndedTeamBrowser];
  handover: [instance: TeamBrowser, handover: ControlHandover];
  controller: [instance: TeamBrowser, holder: ControlHolder | null];
}> {
  readonly #opts: TeamBrowsersOptions;
  readonly #instances = new Map<string, TeamBrowser>();
  readonly #idle = new Map<string, NodeJS.Timeout>();
  readonly #starting = new Map<string, number>();
  readonly #startingForTeam = new Map<string, number>();
  readonly #stopReasons = new Map<string, StopReason>();
  readonly #waiting = new Map<string, WaitingStart>();

  constructor(opts: TeamBrowsersOptions) {
    super();
    this.#opts = opts;
  }

  async start(input: {
    teamId: string;
    user: Starter;
    keyId: string;
    keyName: string;
    apiKey: string;
    name?: string;
    /** The /start options: lifetime, queue, proxy (never logged: the proxy's address holds its credentials). */
    options?: Omit<HoldOptions, 'signal' | 'timeoutMs'>;
  }): Promise<TeamBrowser> {
    const others = (await this.#opts.elsewhere?.(input.teamId, input.user.userId)) ?? { team: 0, user: 0 };
    const mine = this.#countFor(input.user.userId) + others.user;
    if (mine >= this.#opts.maxPerUser) {
      throw new TooManyRequests(`you already run ${mine} browser${mine === 1 ? '' : 's'}, your limit; stop one first`, 5);
    }
    const team = this.countForTeam(input.teamId) + (this.#startingForTeam.get(input.teamId) ?? 0) + others.team;
    if (team >= this.#opts.maxPerTeam) {
      throw new TooManyRequests(`this team already runs ${team} browsers, its limit; stop one first`, 5);
    }
    this.#starting.set(input.user.userId, (this.#starting.get(input.user.userId) ?? 0) + 1);
    this.#startingForTeam.set(input.teamId, (this.#startingForTeam.get(input.teamId) ?? 0) + 1);
    const name = input.name?.trim() || `Browser ${new Date().toISOString().slice(11, 16)}`;
    const waiting: WaitingStart = {
      id: newInstanceId(),
      teamId: input.teamId,
      startedBy: input.user,
      keyName: input.keyName,
      name,
      since: Date.now(),
      shown: false,
      abort: new AbortController(),
    };
    this.#waiting.set(waiting.id, waiting);
    const shownTimer = setTimeout(() => {
      waiting.shown = true;
      this.emit('change', waiting.teamId);
    }, WAITING_SHOWN_AFTER_MS);
    shownTimer.unref();
    let live: LiveBrowser;
    try {
      const held = await holdBrowser(this.#opts.serviceUrl, input.apiKey, { ...input.options, signal: waiting.abort.signal }).catch(
        (err: unknown) => {
          throw err instanceof StartRefused ? refusalToUser(err, input.keyName) : err;
        },
      );
      try {
        live = await LiveBrowser.open(held, { log: this.#opts.log, judgeEgress: (host) => judgeEgress(this.#opts.serviceUrl, held, host) });
      } catch (err) {
        held.release();
        throw err;
      }
    } finally {
      clearTimeout(shownTimer);
      this.#waiting.delete(waiting.id);
      if (waiting.shown) this.emit('change', waiting.teamId);
      this.#starting.set(input.user.userId, (this.#starting.get(input.user.userId) ?? 1) - 1);
      this.#startingForTeam.set(input.teamId, (this.#startingForTeam.get(input.teamId) ?? 1) - 1);
    }
    // Cancelled while Chromium was already being handed over: let it go rather than keep what no one wants.
    if (waiting.abort.signal.aborted) {
      live.stop();
      throw new StartCancelled();
    }
    return this.#register({ ...input, name }, live, false, waiting.id);
  }

  /** The team's starts that are waiting for their browser (those waiting long enough to show), oldest first. */
  waitingForTeam(teamId: string): WaitingStart[] {
    return [...this.#waiting.values()].filter((w) => w.teamId === teamId && w.shown).sort((a, b) => a.since - b.since);
  }

  /** A start still waiting for its browser, by the id it will have. */
  getWaiting(id: string): WaitingStart | undefined {
    return this.#waiting.get(id);
  }

  /** Give up a waiting start: its pending /start is closed, and its caller gets StartCancelled. */
  cancelWaiting(id: string): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    this.#opts.log.info({ instanceId: id, teamId: waiting.teamId }, 'waiting team browser cancelled');
    waiting.abort.abort();
    return true;
  }

  /**
   * Watch a browser that a script started with one of the team's keys: the same live view, its
   * viewers and control, shareable by link, without starting anything. Attaching twice gives the
   * same one. Null when the service has no such live browser for the key.
   */
  async attach(input: {
    teamId: string;
    user: Starter;
    keyId: string;
    keyName: string;
    apiKey: string;
    browserId: string;
    name: string;
  }): Promise<TeamBrowser | null> {
    const known = [...this.#instances.values()].find((i) => i.teamId === input.teamId && i.live.held.id === input.browserId);
    if (known) return known;
    const held = await attachBrowser(this.#opts.serviceUrl, input.apiKey, input.browserId);
    if (!held) return null;
    let live: LiveBrowser;
    try {
      live = await LiveBrowser.open(held, {
        log: this.#opts.log,
        emulate: false,
        judgeEgress: (host) => judgeEgress(this.#opts.serviceUrl, held, host),
      });
    } catch (err) {
      held.release();
      throw err;
    }
    // Two who asked at once: the first one registered wins, the other lets go.
    const raced = [...this.#instances.values()].find((i) => i.teamId === input.teamId && i.live.held.id === input.browserId);
    if (raced) {
      live.stop();
      return raced;
    }
    return this.#register(input, live, true);
  }

  #register(
    input: { teamId: string; user: Starter; keyId: string; keyName: string; name: string },
    live: LiveBrowser,
    attached: boolean,
    id = newInstanceId(),
  ): TeamBrowser {
    const instance: TeamBrowser = {
      id,
      teamId: input.teamId,
      startedBy: input.user,
      keyId: input.keyId,
      keyName: input.keyName,
      name: input.name,
      startedAt: Date.now(),
      live,
      attached,
    };
    this.#instances.set(instance.id, instance);
    live.on('change', () => this.#onViewersChanged(instance));
    live.once('ended', (end) => this.#ended(instance, end));
    live.on('handover', (handover) => this.emit('handover', instance, handover));
    live.on('controller', (holder) => this.emit('controller', instance, holder));
    this.#onViewersChanged(instance);
    this.#opts.log.info(
      { instanceId: instance.id, browserId: live.held.id, teamId: instance.teamId, attached },
      attached ? 'team browser watched' : 'team browser started',
    );
    this.emit('change', instance.teamId);
    return instance;
  }

  get(id: string): TeamBrowser | undefined {
    return this.#instances.get(id);
  }

  /** Every browser this process holds. */
  all(): TeamBrowser[] {
    return [...this.#instances.values()];
  }

  listForTeam(teamId: string): TeamBrowser[] {
    return [...this.#instances.values()].filter((i) => i.teamId === teamId).sort((a, b) => a.startedAt - b.startedAt);
  }

  /** The browsers the portal runs for the team (those it only watches run on their owners' account). */
  countForTeam(teamId: string): number {
    return this.listForTeam(teamId).filter((i) => !i.attached).length;
  }

  countForUser(userId: string): number {
    return [...this.#instances.values()].filter((i) => i.startedBy.userId === userId && !i.attached).length;
  }

  get limits(): { perUser: number; perTeam: number } {
    return { perUser: this.#opts.maxPerUser, perTeam: this.#opts.maxPerTeam };
  }

  rename(id: string, name: string): void {
    const instance = this.#instances.get(id);
    if (!instance) return;
    instance.name = name;
    this.emit('change', instance.teamId);
  }

  /** End an instance on purpose; `reason` is what the record says, `by` who asked. */
  stop(id: string, reason: LiveEnd & { recordedElsewhere?: boolean } = { reason: 'stopped', message: 'stopped' }, by?: Starter): void {
    const instance = this.#instances.get(id);
    if (!instance) return;
    this.#stopReasons.set(id, { ...reason, by });
    instance.live.stop();
  }

  /** Close every /start socket (the service ends those instances) and wait for the ends. */
  async shutdown(): Promise<void> {
    for (const id of [...this.#waiting.keys()]) this.cancelWaiting(id);
    const all = [...this.#instances.values()];
    const ends = all.map((i) => new Promise<void>((resolve) => (i.live.ended ? resolve() : i.live.once('ended', () => resolve()))));
    for (const i of all) this.stop(i.id, { reason: 'portal-shutdown', message: 'the portal shut down' });
    await Promise.race([Promise.all(ends), new Promise((r) => setTimeout(r, 3000).unref())]);
  }

  #countFor(userId: string): number {
    let n = this.#starting.get(userId) ?? 0;
    for (const i of this.#instances.values()) if (i.startedBy.userId === userId && !i.attached) n++;
    return n;
  }

  #onViewersChanged(instance: TeamBrowser): void {
    const timer = this.#idle.get(instance.id);
    if (instance.live.viewerCount > 0) {
      if (timer) clearTimeout(timer);
      this.#idle.delete(instance.id);
    } else if (!timer) {
      const t = setTimeout(
        () => this.stop(instance.id, { reason: 'idle', message: `no one watched for ${Math.round(this.#opts.idleMs / 60_000)} minutes` }),
        this.#opts.idleMs,
      );
      t.unref();
      this.#idle.set(instance.id, t);
    }
    this.emit('change', instance.teamId);
  }

  #ended(instance: TeamBrowser, end: LiveEnd): void {
    clearTimeout(this.#idle.get(instance.id));
    this.#idle.delete(instance.id);
    this.#instances.delete(instance.id);
    const chosen: StopReason = this.#stopReasons.get(instance.id) ?? end;
    this.#stopReasons.delete(instance.id);
    const record: EndedTeamBrowser = {
      id: instance.id,
      browserId: instance.live.held.id,
      teamId: instance.teamId,
      name: instance.name,
      startedBy: instance.startedBy,
      keyName: instance.keyName,
      startedAt: instance.startedAt,
      endedAt: Date.now(),
      reason: chosen.reason,
      message: chosen.message,
      stoppedBy: chosen.by ?? null,
      attached: instance.attached,
      recordedElsewhere: chosen.recordedElsewhere ?? false,
    };
    this.#opts.log.info({ instanceId: instance.id, reason: record.reason }, 'team browser ended');
    this.emit('ended', record);
    this.emit('change', instance.teamId);
  }
}

/** What the service said when it gave no browser, in the portal's terms. */
function refusalToUser(err: StartRefused, keyName: string): DomainError {
  // The service refused what was asked of it (a lifetime past its longest, a proxy it will not use).
  if (err.serviceStatus === 400) return new BadRequest(`The service refused these options: ${err.message}`);
  // persist=1 for a profile another persisting browser of the key holds (decision 0106).
  if (err.serviceStatus === 409)
    return new Conflict(
      `The profile is in use: another browser that saves into it is running. Stop it first, or start without saving. (${err.message})`,
    );
  switch (err.code) {
    case 'key_refused':
      return new DomainError(
        'key_refused',
        `The service refused the key "${keyName}": it may have been revoked. Check it on the API keys page.`,
      );
    case 'rate_limited':
      return new TooManyRequests(`The key "${keyName}" already runs as many browsers as it may: ${err.message}`, 5);
    case 'unavailable':
      return new ServiceUnavailable(`The service cannot start a browser right now: ${err.message}`, 5);
    default:
      return new DomainError('upstream_failed', `Could not start a browser: ${err.message}`);
  }
}
