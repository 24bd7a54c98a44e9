import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CdpMux } from './cdp-mux.ts';

/** What a browser shows, as `GET /v0/browsers` reports it (docs/api.md, "Listing a key's browsers"). */
export type PageState = { tabs: number; page: { url: string; title: string } | null };

type Tab = { url: string; title: string; touched: number };
type TargetInfo = { targetId?: string; type?: string; url?: string; title?: string };

/**
 * The tabs of one instance, followed through target discovery on the service's own root session
 * (its clients never see it). The current page is the tab that changed last (opened or navigated):
 * Chromium has no notion of a focused tab in a headless browser, and lists targets in no set order.
 */
export class TabWatch extends EventEmitter<{ current: [targetId: string | null] }> {
  readonly #mux: CdpMux;
  readonly #tabs = new Map<string, Tab>();
  #clock = 0;

  #current: string | null = null;

  constructor(mux: CdpMux) {
    super();
    this.#mux = mux;
    mux.rootEvents.on('event', (method, params) => this.#on(method, params));
  }

  /** Begin: Chromium announces the tabs it has, then every change. */
  async discover(): Promise<void> {
    await this.#mux.call('Target.setDiscoverTargets', { discover: true, filter: [{ type: 'page' }] });
  }

  /**
   * Read every tab's address and title again: Chromium does not always announce a title that a
   * page sets after its first paint. Bounded in time; a browser that does not answer keeps what
   * was last seen.
   */
  async refresh(timeoutMs = 500): Promise<void> {
    const reply = await Promise.race([
      this.#mux.call<{ targetInfos: TargetInfo[] }>('Target.getTargets', { filter: [{ type: 'page' }] }).catch(() => null),
      sleep(timeoutMs, null, { ref: false }),
    ]);
    for (const info of reply?.targetInfos ?? [])
      if (info.targetId && this.#tabs.has(info.targetId)) this.#on('Target.targetInfoChanged', { targetInfo: info });
  }

  get state(): PageState {
    const current = this.#current ? this.#tabs.get(this.#current) : undefined;
    return { tabs: this.#tabs.size, page: current ? { url: current.url, title: current.title } : null };
  }

  /** The target id of the page in use (the tab that changed last), or null. */
  get currentId(): string | null {
    return this.#current;
  }

  #on(method: string, params: Record<string, unknown>): void {
    const info = params.targetInfo as TargetInfo | undefined;
    if (method === 'Target.targetDestroyed') {
      this.#tabs.delete(String(params.targetId));
      return this.#pickCurrent();
    }
    if ((method !== 'Target.targetCreated' && method !== 'Target.targetInfoChanged') || !info?.targetId || !isTab(info)) return;
    const before = this.#tabs.get(info.targetId);
    const url = info.url ?? '';
    const title = info.title ?? '';
    // A new title alone (a script's, a late one) is no sign that this is the tab in use.
    const touched = !before || before.url !== url ? ++this.#clock : before.touched;
    this.#tabs.set(info.targetId, { url, title, touched });
    this.#pickCurrent();
  }

  #pickCurrent(): void {
    let current: string | null = null;
    let latest = -1;
    for (const [id, tab] of this.#tabs) if (tab.touched > latest) [current, latest] = [id, tab.touched];
    if (current === this.#current) return;
    this.#current = current;
    this.emit('current', current);
  }
}

/** A page a person would call a tab: not a piece of full Chromium's own UI (chrome://…top-chrome). */
export function isTab(info: TargetInfo): boolean {
  return info.type === 'page' && !/^chrome:\/\/[^/]+\.top-chrome\//.test(info.url ?? '');
}
