import type { ViewerInfo } from '../protocol/live.ts';

/** `watchOnly`: a viewer who may never have control (a shared link that only shows the browser). */
type Entry = { id: string; name: string; userId: string | null; joinedAt: number; requested: boolean; watchOnly: boolean };

/**
 * Who watches an instance and who controls it. One viewer at most has control; the first viewer
 * takes it, others ask for it, and the controller hands it over (or releases it to the first who
 * asked). When the controller leaves, control passes to the first who asked, else the longest watcher.
 */
export class ControlState {
  readonly #viewers = new Map<string, Entry>();
  #controllerId: string | null = null;
  #clock = 0;

  get controllerId(): string | null {
    return this.#controllerId;
  }

  get size(): number {
    return this.#viewers.size;
  }

  has(id: string): boolean {
    return this.#viewers.has(id);
  }

  join(id: string, name: string, opts: { takeControl?: boolean; userId?: string | null; watchOnly?: boolean } = {}): void {
    const watchOnly = opts.watchOnly === true;
    this.#viewers.set(id, { id, name, userId: opts.userId ?? null, joinedAt: ++this.#clock, requested: false, watchOnly });
    if (this.#controllerId === null && opts.takeControl !== false && !watchOnly) this.#controllerId = id;
  }

  leave(id: string): void {
    this.#viewers.delete(id);
    if (this.#controllerId === id) {
      this.#controllerId = null;
      this.#passOn();
    }
  }

  /** Ask for control: granted at once when nobody has it. Returns whether `id` now controls. */
  request(id: string): boolean {
    const v = this.#viewers.get(id);
    if (!v || v.watchOnly) return false;
    if (this.#controllerId === null) {
      this.#give(id);
      return true;
    }
    if (this.#controllerId !== id) v.requested = true;
    return this.#controllerId === id;
  }

  /** Take back a question for control. */
  withdraw(id: string): void {
    const v = this.#viewers.get(id);
    if (v) v.requested = false;
  }

  /** The controller says no to `who`'s question. Returns false when `from` does not control or `who` did not ask. */
  decline(from: string, who: string): boolean {
    const v = this.#viewers.get(who);
    if (this.#controllerId !== from || !v?.requested) return false;
    v.requested = false;
    return true;
  }

  /** The controller hands control to `to`. Returns false when `from` does not control or `to` is not watching. */
  grant(from: string, to: string): boolean {
    if (this.#controllerId !== from || !this.#viewers.has(to) || this.#viewers.get(to)!.watchOnly) return false;
    this.#give(to);
    return true;
  }

  /**
   * `id` takes control without the controller's consent, having asked first (whether `id` may,
   * a team owner or admin, is the caller's to check). Returns who had it, or null when nothing
   * changed: `id` did not ask, may only watch, or nobody else had control.
   */
  take(id: string): string | null {
    const v = this.#viewers.get(id);
    const from = this.#controllerId;
    if (!v?.requested || v.watchOnly || from === null || from === id) return null;
    this.#give(id);
    return from;
  }

  /** The controller gives control up; the first who asked gets it. */
  release(id: string): boolean {
    if (this.#controllerId !== id) return false;
    this.#controllerId = null;
    this.#passOn({ fallbackToOldest: false, except: id });
    return true;
  }

  list(): ViewerInfo[] {
    return [...this.#viewers.values()]
      .sort((a, b) => a.joinedAt - b.joinedAt)
      .map((v) => ({ id: v.id, name: v.name, userId: v.userId, control: v.id === this.#controllerId, requested: v.requested }));
  }

  #give(id: string): void {
    for (const v of this.#viewers.values()) if (v.id === id) v.requested = false;
    this.#controllerId = id;
  }

  #passOn(opts: { fallbackToOldest?: boolean; except?: string } = {}): void {
    const ordered = [...this.#viewers.values()].filter((v) => v.id !== opts.except && !v.watchOnly).sort((a, b) => a.joinedAt - b.joinedAt);
    const next = ordered.find((v) => v.requested) ?? (opts.fallbackToOldest === false ? undefined : ordered[0]);
    if (next) this.#give(next.id);
  }
}
