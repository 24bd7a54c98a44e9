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
export class TabWatch {
  readonly #mux: CdpMux;
  readonly #tabs = new Map<string, Tab>();
  #clock = 0;

  constructor(mux: CdpMux) {
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
    let current: Tab | null = null;
    for (const tab of this.#tabs.values()) if (!current || tab.touched > current.touched) current = tab;
    return { tabs: this.#tabs.size, page: current ? { url: current.url, title: current.title } : null };
  }

  #on(method: string, params: Record<string, unknown>): void {
    const info = params.targetInfo as TargetInfo | undefined;
    if (method === 'Target.targetDestroyed') return void this.#tabs.delete(String(params.targetId));
    if ((method !== 'Target.targetCreated' && method !== 'Target.targetInfoChanged') || !info?.targetId || !isTab(info)) return;
    const before = this.#tabs.get(info.targetId);
    const url = info.url ?? '';
    const title = info.title ?? '';
    // A new title alone (a script's, a late one) is no sign that this is the tab in use.
    const touched = !before || before.url !== url ? ++this.#clock : before.touched;
    this.#tabs.set(info.targetId, { url, title, touched });
  }
}

/** A page a person would call a tab: not a piece of full Chromium's own UI (chrome://…top-chrome). */
function isTab(info: TargetInfo): boolean {
  return info.type === 'page' && !/^chrome:\/\/[^/]+\.top-chrome\//.test(info.url ?? '');
}
