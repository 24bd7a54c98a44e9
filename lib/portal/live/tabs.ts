import { EventEmitter } from 'node:events';
import type { Protocol } from 'devtools-protocol/types/protocol.js';
import type { CdpConnection, CdpSession } from '#shared/cdp/client.ts';
import type { EgressJudgement } from '#shared/protocol/egress.ts';
import type { DialogInfo, PageProblem, TabInfo } from '../protocol/live.ts';
import { egressProblemOf, isTunnelFailure, navigationProblem, tunnelProblem } from './page-problem.ts';

type Tab = {
  id: string;
  title: string;
  url: string;
  loading: boolean;
  session: CdpSession | null;
  openedAt: number;
  /** Why the page in front did not load, and the navigation (loader) it belongs to. */
  problem: { info: PageProblem; loaderId: string } | null;
  /** Main-frame navigations under way: request id → address. */
  navigations: Map<string, string>;
};

/** How many main-frame navigations of one tab are followed at once (redirect chains, quick retypes). */
const MAX_NAVIGATIONS = 16;

/** How the service's egress proxy judges a host (lib/portal/service-client/egress.ts); null when it did not say. */
export type JudgeEgress = (host: string) => Promise<EgressJudgement | null>;

/** The remote pages' size in CSS pixels; `mobile`: emulate a phone (its viewport rules and a touch screen). */
export type Viewport = { width: number; height: number; mobile?: boolean };

/**
 * The page targets of one browser, each attached through a flattened session: titles, addresses,
 * loading state and dialogs, and which tab is in front. New pages (window.open, target=_blank)
 * come to the front as they would in a desktop browser.
 */
export class Tabs extends EventEmitter<{
  change: [];
  dialog: [tabId: string, dialog: DialogInfo | null];
  frame: [tabId: string, frame: Protocol.Page.ScreencastFrameEvent];
  attached: [tabId: string, session: CdpSession];
}> {
  readonly #cdp: CdpConnection;
  readonly #tabs = new Map<string, Tab>();
  #activeId: string | null = null;
  #viewport: Viewport;
  /** Whether the viewport is the portal's to set (false: a script's browser keeps its own). */
  readonly #emulate: boolean;
  readonly #judgeEgress: JudgeEgress | null;
  #clock = 0;
  #poll: NodeJS.Timeout | null = null;
  /** open() calls waiting for their target: the page target listed meanwhile is theirs, and comes
   * to the front as it is listed. Chromium announces it (Target.targetCreated) before it answers
   * Target.createTarget, and a viewer shown the new tab beside the old one in front would type
   * its address into the old one. */
  #opening = 0;

  constructor(cdp: CdpConnection, viewport: Viewport, opts: { emulate?: boolean; judgeEgress?: JudgeEgress } = {}) {
    super();
    this.#cdp = cdp;
    this.#viewport = viewport;
    this.#emulate = opts.emulate !== false;
    this.#judgeEgress = opts.judgeEgress ?? null;
    cdp.once('close', () => this.stopPolling());
  }

  /**
   * Chromium announces new targets and navigations, but not a title that a script sets later:
   * read every page's title and address every `ms` (one cheap call) while the browser lives.
   */
  startPolling(ms: number): void {
    this.#poll ??= setInterval(() => void this.#pollTargets(), ms);
    this.#poll.unref();
  }

  stopPolling(): void {
    if (this.#poll) clearInterval(this.#poll);
    this.#poll = null;
  }

  async #pollTargets(): Promise<void> {
    const r = await this.#cdp.browser.send('Target.getTargets').catch(() => null);
    for (const info of r?.targetInfos ?? []) if (isTab(info)) this.#changed(info);
  }

  async init(): Promise<void> {
    const browser = this.#cdp.browser;
    browser.on('Target.targetCreated', ({ targetInfo }) => void this.#created(targetInfo));
    browser.on('Target.targetInfoChanged', ({ targetInfo }) => this.#changed(targetInfo));
    browser.on('Target.targetDestroyed', ({ targetId }) => this.#destroyed(targetId));
    await browser.send('Target.setDiscoverTargets', { discover: true });
    const { targetInfos } = await browser.send('Target.getTargets');
    await Promise.all(targetInfos.filter(isTab).map((t) => this.#created(t)));
    if (this.#tabs.size === 0) await this.open('about:blank');
  }

  get activeId(): string | null {
    return this.#activeId;
  }

  get active(): CdpSession | null {
    return this.#activeId ? (this.#tabs.get(this.#activeId)?.session ?? null) : null;
  }

  /**
   * The active tab's session, waiting (at most `ms`) while a tab that was just opened is still
   * being attached, so a command sent right after "New tab" reaches it instead of being lost.
   */
  activeSession(ms: number): Promise<CdpSession | null> {
    const id = this.#activeId;
    const tab = id ? this.#tabs.get(id) : undefined;
    if (!id || !tab) return Promise.resolve(null);
    if (tab.session) return Promise.resolve(tab.session);
    return new Promise((resolve) => {
      const attached = (tabId: string, session: CdpSession) => tabId === id && finish(session);
      const finish = (session: CdpSession | null) => {
        clearTimeout(timer);
        this.off('attached', attached);
        resolve(session);
      };
      const timer = setTimeout(() => finish(null), ms);
      this.on('attached', attached);
    });
  }

  session(tabId: string): CdpSession | null {
    return this.#tabs.get(tabId)?.session ?? null;
  }

  list(): TabInfo[] {
    return [...this.#tabs.values()]
      .sort((a, b) => a.openedAt - b.openedAt)
      .map((t) => ({
        id: t.id,
        title: t.title,
        url: t.url,
        loading: t.loading,
        active: t.id === this.#activeId,
        problem: t.problem?.info ?? null,
      }));
  }

  has(tabId: string): boolean {
    return this.#tabs.has(tabId);
  }

  async open(url: string): Promise<string> {
    this.#opening++;
    let targetId: string;
    try {
      ({ targetId } = await this.#cdp.browser.send('Target.createTarget', { url }));
    } finally {
      this.#opening--;
    }
    const created = this.#created({ targetId, type: 'page', title: '', url, attached: false, canAccessOpener: false }, true);
    this.activate(targetId);
    await created;
    return targetId;
  }

  async close(tabId: string): Promise<void> {
    if (this.#tabs.size === 1) await this.open('about:blank');
    await this.#cdp.browser.send('Target.closeTarget', { targetId: tabId });
  }

  activate(tabId: string): void {
    const tab = this.#tabs.get(tabId);
    if (!tab || this.#activeId === tabId) return;
    this.#activeId = tabId;
    tab.session?.post('Page.bringToFront');
    this.emit('change');
  }

  async setViewport(viewport: Viewport): Promise<void> {
    this.#viewport = viewport;
    await Promise.all([...this.#tabs.values()].map((t) => t.session && this.#applyViewport(t.session)));
  }

  #applyViewport(session: CdpSession): Promise<unknown> {
    if (!this.#emulate) return Promise.resolve();
    const { width, height, mobile = false } = this.#viewport;
    return Promise.all([
      session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile }),
      session.send('Emulation.setTouchEmulationEnabled', { enabled: mobile, maxTouchPoints: mobile ? 5 : 1 }),
    ]).catch(() => {});
  }

  /** Lists and attaches a new page target. It comes to the front as it is listed when `front`
   * (the portal opened it), when an open() waits for its target, or when a page opened it. */
  async #created(info: Protocol.Target.TargetInfo, front = false): Promise<void> {
    if (!isTab(info) || this.#tabs.has(info.targetId)) return;
    const tab: Tab = {
      id: info.targetId,
      title: info.title,
      url: info.url,
      loading: false,
      session: null,
      openedAt: ++this.#clock,
      problem: null,
      navigations: new Map(),
    };
    this.#tabs.set(info.targetId, tab);
    if (this.#activeId === null || info.openerId || front || this.#opening > 0) this.#activeId = info.targetId;
    this.emit('change');
    try {
      const { sessionId } = await this.#cdp.browser.send('Target.attachToTarget', { targetId: info.targetId, flatten: true });
      const session = this.#cdp.session(sessionId);
      tab.session = session;
      session.on('Page.frameStartedLoading', ({ frameId }) => frameId === tab.id && this.#loading(tab, true));
      session.on('Page.frameStoppedLoading', ({ frameId }) => {
        if (frameId !== tab.id) return;
        this.#loading(tab, false);
        void this.#refresh(tab.id);
      });
      session.on('Page.domContentEventFired', () => void this.#refresh(tab.id));
      session.on('Page.javascriptDialogOpening', (d) =>
        this.emit('dialog', tab.id, { dialogType: d.type, message: d.message, defaultPrompt: d.defaultPrompt ?? '' }),
      );
      session.on('Page.javascriptDialogClosed', () => this.emit('dialog', tab.id, null));
      session.on('Page.screencastFrame', (frame) => this.emit('frame', tab.id, frame));
      this.#watchLoads(tab, session);
      await Promise.all([
        session.send('Page.enable'),
        // Only events are wanted: no response bodies are kept for this session.
        session.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
        this.#applyViewport(session),
      ]);
      this.emit('attached', tab.id, session);
    } catch {
      // The target went away while we attached; targetDestroyed removes it.
    }
  }

  /**
   * Follow the tab's main-frame navigations to say why one did not load: Chromium's error for a
   * navigation that failed, or the egress proxy's reason when it answered in the site's place.
   * A later navigation that commits a page of its own clears the problem.
   */
  #watchLoads(tab: Tab, session: CdpSession): void {
    const follow = tab.navigations;
    session.on('Network.requestWillBeSent', ({ requestId, type, frameId, request }) => {
      if (type !== 'Document' || frameId !== tab.id) return;
      follow.delete(requestId);
      follow.set(requestId, request.url);
      if (follow.size > MAX_NAVIGATIONS) follow.delete(follow.keys().next().value!);
    });
    session.on('Network.responseReceived', ({ requestId, response }) => {
      const url = follow.get(requestId);
      if (url === undefined) return;
      follow.delete(requestId);
      const problem = egressProblemOf(url, response.headers);
      if (problem) this.#setProblem(tab, requestId, problem);
    });
    session.on('Network.loadingFailed', ({ requestId, errorText, canceled }) => {
      const url = follow.get(requestId);
      if (url === undefined) return;
      follow.delete(requestId);
      if (!canceled) this.#failed(tab, requestId, url, errorText);
    });
    session.on('Page.frameNavigated', ({ frame }) => {
      if (frame.parentId || frame.url.startsWith('chrome-error:') || tab.problem?.loaderId === frame.loaderId) return;
      this.#setProblem(tab, '', null);
    });
  }

  problemOf(tabId: string): PageProblem | null {
    return this.#tabs.get(tabId)?.problem?.info ?? null;
  }

  /** A navigation of this tab failed before the browser said so on the network (a blocked address). */
  noteFailure(tabId: string, url: string, errorText: string): void {
    const tab = this.#tabs.get(tabId);
    if (tab && tab.problem?.info.url !== url) this.#failed(tab, '', url, errorText);
  }

  /**
   * Say why a navigation failed. A secure connection the egress proxy did not open is first told
   * in the words Chromium's error allows, then, once the service has said how its proxy judges the
   * host, in the words that fit: the policy (BROWSER_EGRESS_ALLOW), or the network.
   */
  #failed(tab: Tab, loaderId: string, url: string, errorText: string): void {
    const problem = navigationProblem(url, errorText);
    if (!problem) return;
    this.#setProblem(tab, loaderId, problem);
    const host = hostnameOf(url);
    if (!this.#judgeEgress || !host || !isTunnelFailure(problem.code)) return;
    void this.#judgeEgress(host).then((judged) => {
      // A later navigation has said something else meanwhile: leave it.
      if (judged && tab.problem?.info === problem) this.#setProblem(tab, loaderId, tunnelProblem(url, problem.code, judged));
    });
  }

  #setProblem(tab: Tab, loaderId: string, problem: PageProblem | null): void {
    if (!problem && !tab.problem) return;
    tab.problem = problem ? { info: problem, loaderId } : null;
    this.emit('change');
  }

  /** Chromium does not always announce a title that arrives after the first paint: ask. */
  async #refresh(targetId: string): Promise<void> {
    const r = await this.#cdp.browser.send('Target.getTargetInfo', { targetId }).catch(() => null);
    if (r) this.#changed(r.targetInfo);
  }

  #changed(info: Protocol.Target.TargetInfo): void {
    const tab = this.#tabs.get(info.targetId);
    if (!tab || (tab.title === info.title && tab.url === info.url)) return;
    tab.title = info.title;
    tab.url = info.url;
    this.emit('change');
  }

  #loading(tab: Tab, loading: boolean): void {
    if (tab.loading === loading) return;
    tab.loading = loading;
    this.emit('change');
  }

  #destroyed(targetId: string): void {
    const tab = this.#tabs.get(targetId);
    if (!tab) return;
    this.#tabs.delete(targetId);
    if (tab.session?.sessionId) this.#cdp.dropSession(tab.session.sessionId);
    if (this.#activeId === targetId) {
      const next = [...this.#tabs.values()].sort((a, b) => b.openedAt - a.openedAt)[0];
      this.#activeId = next?.id ?? null;
      next?.session?.post('Page.bringToFront');
    }
    this.emit('change');
  }
}

/**
 * A page a person would call a tab. Full Chromium's headless mode also lists pieces of its own
 * browser UI as pages (chrome://omnibox-popup.top-chrome/ and the like); they are never tabs.
 */
export function isTab(info: Pick<Protocol.Target.TargetInfo, 'type' | 'url'>): boolean {
  return info.type === 'page' && !/^chrome:\/\/[^/]+\.top-chrome\//.test(info.url);
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}
