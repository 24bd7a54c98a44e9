import { EventEmitter } from 'node:events';
import type { HeldRow } from './held-row.ts';
import { rowOf } from './held-row.ts';
import type { LiveEnd } from './live-browser.ts';
import type { Starter, TeamBrowser, TeamBrowsers } from './team-browsers.ts';

/**
 * A team browser found by its id: its row, and the browser itself when this process holds it, else
 * the address of the node that does.
 */
export type Located = { row: HeldRow; local: TeamBrowser; holderUrl: null } | { row: HeldRow; local: null; holderUrl: string };

/** A small picture of a team browser, for dashboards. */
export type Thumbnail = { instanceId: string; jpeg: Uint8Array; source: 'screencast' | 'capture' };

/** Browsers of the team on other nodes (none in a single process), for the portal's own limits. */
export type Usage = { team: number; user: number };

/**
 * Where the team browsers are, across every portal node (decision 0095). The domain (lib/portal/live/
 * browsers.ts, links.ts), the dashboard and the live sockets ask here instead of the process's own
 * TeamBrowsers, so a browser held by another node is listed, found, stopped and renamed the same way.
 * One process: `LocalDirectory`; several nodes on Redis: `ClusterDirectory` (lib/portal/cluster/).
 */
export interface BrowserDirectory {
  /** The browsers this process holds (their /start sockets are here). */
  readonly local: TeamBrowsers;
  /** This node's id; null in a single process. */
  readonly nodeId: string | null;
  /** The team's browsers on every live node, oldest first. */
  listForTeam(teamId: string): Promise<HeldRow[]>;
  find(instanceId: string): Promise<Located | null>;
  /** The team's browser (on any node) that holds the service's browser `browserId`, if one does. */
  findByBrowserId(teamId: string, browserId: string): Promise<Located | null>;
  /** The portal's browsers (not the ones it only watches) for the team and for one person, on every node. */
  usage(teamId: string, userId: string): Promise<Usage>;
  /** The same on the other nodes only. */
  elsewhere(teamId: string, userId: string): Promise<Usage>;
  stop(at: Located, end: LiveEnd, by?: Starter): Promise<void>;
  rename(at: Located, name: string): Promise<void>;
  /** Every change of a team's browsers, on this node or any other; returns the unsubscribe. */
  onChange(listener: (teamId: string) => void): () => void;
  /** Tell every node's dashboards that the team's browsers changed (e.g. a script's browser was stopped). */
  changed(teamId: string): void;
  /** A picture of each of the team's browsers, from whichever node holds it (those that have one). */
  thumbnails(teamId: string): Promise<Thumbnail[]>;
  /** Wait until what this node changed so far can be read on every node (a browser just started, renamed). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const byStart = (a: HeldRow, b: HeldRow) => a.startedAt - b.startedAt || a.id.localeCompare(b.id);

/** One portal process: everything is in its own TeamBrowsers. */
export class LocalDirectory implements BrowserDirectory {
  readonly local: TeamBrowsers;
  readonly nodeId = null;
  readonly #events = new EventEmitter<{ change: [string] }>();

  constructor(local: TeamBrowsers) {
    this.local = local;
    this.#events.setMaxListeners(0);
    local.on('change', (teamId) => this.#events.emit('change', teamId));
  }

  async listForTeam(teamId: string): Promise<HeldRow[]> {
    return this.local
      .listForTeam(teamId)
      .map((i) => rowOf(i, null))
      .sort(byStart);
  }

  async find(instanceId: string): Promise<Located | null> {
    const local = this.local.get(instanceId);
    return local ? { row: rowOf(local, null), local, holderUrl: null } : null;
  }

  async findByBrowserId(teamId: string, browserId: string): Promise<Located | null> {
    const local = this.local.listForTeam(teamId).find((i) => i.live.held.id === browserId);
    return local ? { row: rowOf(local, null), local, holderUrl: null } : null;
  }

  async usage(teamId: string, userId: string): Promise<Usage> {
    return { team: this.local.countForTeam(teamId), user: this.local.countForUser(userId) };
  }

  async elsewhere(): Promise<Usage> {
    return { team: 0, user: 0 };
  }

  async stop(at: Located, end: LiveEnd, by?: Starter): Promise<void> {
    if (at.local) this.local.stop(at.local.id, end, by);
  }

  async rename(at: Located, name: string): Promise<void> {
    if (at.local) this.local.rename(at.local.id, name);
  }

  onChange(listener: (teamId: string) => void): () => void {
    this.#events.on('change', listener);
    return () => this.#events.off('change', listener);
  }

  changed(teamId: string): void {
    this.#events.emit('change', teamId);
  }

  thumbnails(teamId: string): Promise<Thumbnail[]> {
    return localThumbnails(this.local, teamId);
  }

  async settle(): Promise<void> {}

  async close(): Promise<void> {}
}

export { byStart };

/** Pictures of the team's browsers this process holds. */
export async function localThumbnails(local: TeamBrowsers, teamId: string): Promise<Thumbnail[]> {
  const out: Thumbnail[] = [];
  for (const instance of local.listForTeam(teamId)) {
    const shot = await instance.live.thumbnail();
    if (shot) out.push({ instanceId: instance.id, ...shot });
  }
  return out;
}
