import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '#shared/log.ts';
import { asDomainError } from '#portal/errors.ts';
import {
  DASHBOARD_CLOSE,
  DASHBOARD_MAX_MESSAGE_BYTES,
  DASHBOARD_PROTOCOL_VERSION,
  dashboardClientMessage,
  encodeThumbnail,
  type DashboardServerMessage,
  type DashboardSnapshot,
} from '#portal/protocol/dashboard.ts';
import type { BrowserDirectory } from '#portal/live/directory.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import { AccessWatch } from './access-watch.ts';
import { authorizeUpgrade, type SignedInUser, type SocketAuth } from './authorize.ts';
import { Heartbeat } from './heartbeat.ts';

export const DASHBOARD_PATH = /^\/events\/(team_[A-Za-z0-9_-]{16})$/;

export type DashboardSocketDeps = SocketAuth & {
  /** The team browsers of every portal node, and their changes (decision 0095). */
  browsers: BrowserDirectory;
  /** The snapshot as `userId` may see it; throws NotFound when they are not a member of the team. */
  snapshot: (userId: string, teamId: string) => Promise<DashboardSnapshot>;
  log: Logger;
  /** How often thumbnails go out while someone watches the dashboard. */
  thumbnailMs?: number;
  /**
   * How often the snapshot is read again while someone watches: browsers started with the team's
   * keys elsewhere come and go without the portal hearing of it. Sent only when it changed.
   */
  refreshMs?: number;
};

/** `last`: the snapshot last sent, to send only what changed. */
type Subscriber = { ws: WebSocket; user: SignedInUser; teamId: string; last: string };

const DEBOUNCE_MS = 100;

/**
 * `/events/<teamId>`: pushes the team's instances to its dashboards as they start, change and end
 * (a fresh snapshot per change, coalesced), and one small thumbnail per instance every few seconds
 * while anyone watches. Session and membership are checked at the handshake, before every push,
 * and again the moment either changes.
 */
export class DashboardSockets {
  readonly #deps: DashboardSocketDeps;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: DASHBOARD_MAX_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #heartbeat = new Heartbeat(15_000);
  readonly #byTeam = new Map<string, Set<Subscriber>>();
  readonly #pending = new Map<string, NodeJS.Timeout>();
  readonly #thumbnails: NodeJS.Timeout;
  readonly #refresh: NodeJS.Timeout;
  readonly #access: AccessWatch;
  readonly #unsubscribe: () => void;

  constructor(deps: DashboardSocketDeps) {
    this.#deps = deps;
    this.#access = new AccessWatch(deps);
    this.#unsubscribe = deps.browsers.onChange((teamId) => this.#schedule(teamId));
    this.#thumbnails = setInterval(() => void this.#sendThumbnails(), deps.thumbnailMs ?? 3000);
    this.#thumbnails.unref();
    this.#refresh = setInterval(() => {
      for (const teamId of this.#byTeam.keys()) void this.#push(teamId);
    }, deps.refreshMs ?? 5000);
    this.#refresh.unref();
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, teamId: string): Promise<void> {
    let user: SignedInUser;
    let first: DashboardSnapshot;
    try {
      user = await authorizeUpgrade(req, this.#deps);
      first = await this.#deps.snapshot(user.userId, teamId);
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const sub: Subscriber = { ws, user, teamId, last: JSON.stringify(first) };
      const subs = this.#byTeam.get(teamId) ?? new Set();
      subs.add(sub);
      this.#byTeam.set(teamId, subs);
      this.#heartbeat.add(ws);
      // Signed out or removed: closed at once; a new role: a fresh snapshot (what they may stop changes).
      this.#access.watch(ws, user, teamId, (access) => {
        if (access === 'signed-out') ws.close(DASHBOARD_CLOSE.unauthenticated.code, DASHBOARD_CLOSE.unauthenticated.reason);
        else if (access === 'not-member') ws.close(DASHBOARD_CLOSE.removed.code, DASHBOARD_CLOSE.removed.reason);
        else void this.#pushTo(sub);
      });
      this.#send(ws, { type: 'snapshot', v: DASHBOARD_PROTOCOL_VERSION, at: Date.now(), ...first });
      ws.on('message', (data, isBinary) => {
        const parsed = isBinary ? null : dashboardClientMessage.safeParse(safeJson(data.toString()));
        if (!parsed?.success)
          return this.#send(ws, { type: 'error', message: 'the only message this socket takes is {"type":"ping","t":number}' });
        this.#send(ws, { type: 'pong', t: parsed.data.t });
      });
      ws.on('error', () => ws.terminate());
      ws.once('close', () => {
        subs.delete(sub);
        if (subs.size === 0) this.#byTeam.delete(teamId);
      });
      void this.#sendThumbnails(teamId);
    });
  }

  closeAll(): void {
    this.#unsubscribe();
    this.#access.stop();
    clearInterval(this.#thumbnails);
    clearInterval(this.#refresh);
    this.#heartbeat.closeAll(DASHBOARD_CLOSE.goingAway.code, DASHBOARD_CLOSE.goingAway.reason);
  }

  #schedule(teamId: string): void {
    if (!this.#byTeam.has(teamId) || this.#pending.has(teamId)) return;
    this.#pending.set(
      teamId,
      setTimeout(() => {
        this.#pending.delete(teamId);
        void this.#push(teamId);
      }, DEBOUNCE_MS),
    );
  }

  async #push(teamId: string): Promise<void> {
    for (const sub of this.#byTeam.get(teamId) ?? []) await this.#pushTo(sub);
  }

  async #pushTo(sub: Subscriber): Promise<void> {
    try {
      const snapshot = await this.#deps.snapshot(sub.user.userId, sub.teamId);
      const text = JSON.stringify(snapshot);
      if (text === sub.last) return;
      sub.last = text;
      this.#send(sub.ws, { type: 'snapshot', v: DASHBOARD_PROTOCOL_VERSION, at: Date.now(), ...snapshot });
    } catch (err) {
      if (asDomainError(err)?.code === 'not_found') sub.ws.close(DASHBOARD_CLOSE.removed.code, DASHBOARD_CLOSE.removed.reason);
      else this.#deps.log.warn({ err, teamId: sub.teamId }, 'dashboard snapshot failed');
    }
  }

  /** One thumbnail per instance of each watched team (or of one team, for a newcomer), from whichever node holds it. */
  async #sendThumbnails(onlyTeam?: string): Promise<void> {
    const teams = onlyTeam ? [onlyTeam] : [...this.#byTeam.keys()];
    for (const teamId of teams) {
      const subs = this.#byTeam.get(teamId);
      if (!subs?.size) continue;
      for (const shot of await this.#deps.browsers.thumbnails(teamId)) {
        const bytes = encodeThumbnail({ instanceId: shot.instanceId, at: Date.now(), source: shot.source }, shot.jpeg);
        // A dashboard that has not taken the last thumbnail yet skips this one.
        for (const sub of subs)
          if (sub.ws.readyState === sub.ws.OPEN && sub.ws.bufferedAmount < 256 * 1024) sub.ws.send(bytes, { binary: true });
      }
    }
  }

  #send(ws: WebSocket, message: DashboardServerMessage): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
