import type { WebSocket } from 'ws';
import type { AccessChange } from '#portal/data/portal-data.ts';
import type { Access, SignedInUser, SocketAuth } from './authorize.ts';

type Watched = { user: SignedInUser; teamId: string; onChange: (access: Access) => void };

/**
 * Open sockets by user. When a user's access changes (sign-out, new password, removal from a
 * team, a new role), each of their sockets is re-checked at once and told the answer: the socket
 * closes when it is no longer allowed, and may refresh what it shows when it still is.
 */
export class AccessWatch {
  readonly #auth: Pick<SocketAuth, 'recheck' | 'onAccessChange'>;
  readonly #byUser = new Map<string, Set<Watched>>();
  #unsubscribe: (() => void) | null = null;

  constructor(auth: Pick<SocketAuth, 'recheck' | 'onAccessChange'>) {
    this.#auth = auth;
  }

  /** Watch `ws` until it closes; `onChange` gets every re-check's answer. */
  watch(ws: WebSocket, user: SignedInUser, teamId: string, onChange: (access: Access) => void): void {
    this.#unsubscribe ??= this.#auth.onAccessChange((change) => void this.#recheck(change));
    const entry: Watched = { user, teamId, onChange };
    const set = this.#byUser.get(user.userId) ?? new Set();
    set.add(entry);
    this.#byUser.set(user.userId, set);
    ws.once('close', () => {
      set.delete(entry);
      if (set.size === 0 && this.#byUser.get(user.userId) === set) this.#byUser.delete(user.userId);
    });
    // A change committed between the handshake's check and now is not missed.
    void this.#recheckOne(entry, { quietIfOk: true });
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  async #recheck(change: AccessChange): Promise<void> {
    // Whose access another process changed is not known: every socket is asked again, and only
    // those no longer allowed hear of it.
    if (change.userId === null) {
      for (const set of [...this.#byUser.values()]) for (const entry of [...set]) await this.#recheckOne(entry, { quietIfOk: true });
      return;
    }
    for (const entry of this.#byUser.get(change.userId) ?? []) {
      if (change.teamId === null || change.teamId === entry.teamId) await this.#recheckOne(entry);
    }
  }

  async #recheckOne(entry: Watched, opts: { quietIfOk?: boolean } = {}): Promise<void> {
    // Fail closed: an error while checking counts as signed out.
    const access = await this.#auth.recheck(entry.user, entry.teamId).catch((): Access => 'signed-out');
    if (access !== 'ok' || !opts.quietIfOk) entry.onChange(access);
  }
}
