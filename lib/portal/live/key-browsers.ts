import type { Logger } from 'pino';
import { eachTeamKey, type Vault } from '../keys/vault.ts';
import { listKeyBrowsers, stopKeyBrowser, type KeyBrowser } from '../service-client/key-browsers.ts';
import { requireRole, type Actor } from '../teams/access.ts';

/** A browser started with one of the team's keys, by anyone: a script, CI, this portal. */
export type KeyBrowserOfTeam = KeyBrowser & { keyId: string; keyName: string };

type Cached = { at: number; value: KeyBrowserOfTeam[] };

/**
 * The browsers of every key of a team, live and recently ended, from the service's own list
 * (docs/api.md, "Listing and stopping a key's browsers"): what the dashboard shows beside the
 * browsers this portal holds, and among those that ended. Read at most once per `maxAgeMs` per
 * team (one request per key for both) and shared by every dashboard of it; a service that cannot be
 * reached leaves the last list in place.
 */
export class KeyBrowsers {
  readonly #serviceUrl: string;
  readonly #vault: Vault;
  readonly #log: Logger;
  readonly #maxAgeMs: number;
  readonly #cache = new Map<string, Cached>();
  readonly #pending = new Map<string, Promise<KeyBrowserOfTeam[]>>();

  constructor(opts: { serviceUrl: string; vault: Vault; log: Logger; maxAgeMs?: number }) {
    this.#serviceUrl = opts.serviceUrl;
    this.#vault = opts.vault;
    this.#log = opts.log;
    this.#maxAgeMs = opts.maxAgeMs ?? 4000;
  }

  /** The team's live key browsers as `actor` (a member) may see them. */
  async list(actor: Actor, teamId: string, { fresh = false } = {}): Promise<KeyBrowserOfTeam[]> {
    return (await this.all(actor, teamId, { fresh })).filter((b) => b.live);
  }

  /**
   * Every key browser of the team the service still lists: the live ones, and those that ended
   * within its history (BROWSER_HISTORY_HOURS, the newest 100 per key).
   */
  async all(actor: Actor, teamId: string, { fresh = false } = {}): Promise<KeyBrowserOfTeam[]> {
    // Checked before the cache: what one member read is never handed to someone who is not one.
    await requireRole(this.#vault.data, actor, teamId, 'member');
    const cached = this.#cache.get(teamId);
    if (!fresh && cached && Date.now() - cached.at < this.#maxAgeMs) return cached.value;
    let pending = this.#pending.get(teamId);
    if (!pending) {
      pending = this.#read(actor, teamId).finally(() => this.#pending.delete(teamId));
      this.#pending.set(teamId, pending);
    }
    return pending;
  }

  /** End a browser of one of the team's keys. False when none of them has it live. */
  async stop(actor: Actor, teamId: string, id: string): Promise<KeyBrowserOfTeam | null> {
    const found = (await this.list(actor, teamId, { fresh: true })).find((b) => b.id === id);
    if (!found) return null;
    const stopped = await eachTeamKey(this.#vault, actor, teamId, async (key, token) =>
      key.id === found.keyId ? stopKeyBrowser(this.#serviceUrl, token, id) : false,
    );
    this.#cache.delete(teamId);
    return stopped.some(Boolean) ? found : null;
  }

  /** Each key on its own: a key the service refuses lists nothing, a key whose list failed keeps its last one. */
  async #read(actor: Actor, teamId: string): Promise<KeyBrowserOfTeam[]> {
    const before = this.#cache.get(teamId)?.value ?? [];
    const perKey = await eachTeamKey(this.#vault, actor, teamId, async (key, token) => {
      try {
        return ((await listKeyBrowsers(this.#serviceUrl, token)) ?? []).map((b) => ({ ...b, keyId: key.id, keyName: key.name }));
      } catch (err) {
        this.#log.warn({ err, teamId, keyId: key.id }, 'could not read the browsers of a team key');
        return before.filter((b) => b.keyId === key.id);
      }
    });
    const value = perKey.flat().sort((a, b) => b.startedAt - a.startedAt);
    this.#cache.set(teamId, { at: Date.now(), value });
    return value;
  }
}
