import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { CdpConnection, type CdpSession } from '#shared/cdp/client.ts';
import { CONTROL_ONLY, type ClientMessage, type DialogInfo, type FrameMeta, type ServerMessage, type TabInfo } from '../protocol/live.ts';
import { describeEnd, type HeldBrowser } from '../service-client/browser.ts';
import { ControlState } from './control.ts';
import type { FrameSlot } from './frame-slot.ts';
import { planNavigation, worthFallingBack } from './address.ts';
import { InputQueue, keyEvent, mouseEvent, touchEvent, wheelEvent } from './input.ts';
import { Screencast, type EncodedFrame } from './screencast.ts';
import { Tabs, type JudgeEgress, type Viewport } from './tabs.ts';

/** How long a navigation waits for a tab that was just opened to be attached. */
const ATTACH_WAIT_MS = 5000;

/** One person's view of the instance: where server messages and frames go. */
export type Viewer = {
  id: string;
  name: string;
  /** The portal user behind the viewer, for the record of who had control. */
  userId?: string;
  /** May only watch: never given control, and sends nothing but its hello and pings (a shared watch link). */
  watchOnly?: boolean;
  /** Whether the viewer may take control without the controller's consent (a team owner or admin), asked at each take. */
  mayTakeControl?: () => Promise<boolean>;
  send(message: ServerMessage): void;
  frames: FrameSlot;
  /** Bytes queued on the viewer's connection and not yet handed to the network, when known. */
  bufferedBytes?: () => number;
};

export type ViewerStats = { id: string; name: string; sent: number; dropped: number; waitingBytes: number; bufferedBytes: number | null };

/** `emulate: false`: leave the pages' viewport as their owner set it (a script's browser the portal only watches). */
/** `judgeEgress`: how the service's egress proxy judges a host, to explain a failed secure connection. */
export type LiveOptions = { log: Logger; jpegQuality?: number; viewport?: Viewport; emulate?: boolean; judgeEgress?: JudgeEgress };
export type LiveEnd = { reason: string; message: string };
/** Who held control before and after a change between two people; `taken`: without the holder's consent. */
export type ControlHandover = { from: ControlHolder; to: ControlHolder; taken: boolean };
export type ControlHolder = { name: string; userId?: string };

const COPY_SELECTION = `(() => {
  const el = document.activeElement;
  if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && typeof el.selectionStart === 'number') {
    return el.value.substring(el.selectionStart, el.selectionEnd);
  }
  return String(getSelection() ?? '');
})()`;

/**
 * A held browser made watchable: one CDP connection, one screencast of the tab in front (running
 * only while someone watches) fanned out to every viewer, input from the viewer in control, tabs,
 * navigation and dialogs.
 */
export class LiveBrowser extends EventEmitter<{
  change: [];
  ended: [LiveEnd];
  frame: [FrameMeta];
  /** Control passed from one person to another. */
  handover: [ControlHandover];
  /** Whoever has control now (null: nobody), on every change, the first take included. */
  controller: [ControlHolder | null];
}> {
  readonly held: HeldBrowser;
  readonly #cdp: CdpConnection;
  readonly #tabs: Tabs;
  readonly #screencast: Screencast;
  readonly #viewers = new Map<string, Viewer>();
  readonly control = new ControlState();
  readonly #input: InputQueue;
  #viewport: { mode: 'follow' | 'fixed' } & Viewport;
  #dialog: { tabId: string; info: DialogInfo } | null = null;
  #ended: LiveEnd | null = null;
  #stateQueued = false;
  /** The controller as of the last state sent, to tell a handover from a first take. */
  #lastController: ControlHolder | null = null;
  /** Control was taken since the last state sent, not handed over. */
  #taken = false;

  private constructor(held: HeldBrowser, cdp: CdpConnection, opts: LiveOptions) {
    super();
    this.held = held;
    this.#cdp = cdp;
    this.#viewport = { mode: 'fixed', ...(opts.viewport ?? { width: 1280, height: 720 }) };
    this.#tabs = new Tabs(cdp, this.#viewport, { emulate: opts.emulate, judgeEgress: opts.judgeEgress });
    this.#screencast = new Screencast(this.#tabs, {
      quality: opts.jpegQuality ?? 70,
      log: opts.log,
      size: this.#viewport,
      deliver: (frame) => this.#fanOut(frame),
    });
    this.#input = new InputQueue((params) => this.#tabs.active?.post('Input.dispatchMouseEvent', params));
    this.#tabs.on('change', () => {
      this.#syncScreencast();
      this.#queueState();
    });
    this.#tabs.on('dialog', (tabId, info) => this.#onDialog(tabId, info));
    this.#tabs.on('attached', () => this.#syncScreencast());
  }

  static async open(held: HeldBrowser, opts: LiveOptions): Promise<LiveBrowser> {
    const cdp = await CdpConnection.connect(held.debuggerUrl, held.headers);
    const live = new LiveBrowser(held, cdp, opts);
    await live.#tabs.init();
    live.#tabs.startPolling(1000);
    void held.ended.then((end) => live.#end(describeEnd(end)));
    // A DevTools connection that drops on its own usually means the browser died; the service then
    // closes /start with the reason. Give it a moment to say so before letting go ourselves.
    cdp.once('close', () => {
      if (live.#ended) return;
      setTimeout(() => {
        if (!live.#ended) held.release();
      }, 2000).unref();
    });
    return live;
  }

  get ended(): LiveEnd | null {
    return this.#ended;
  }

  get viewerCount(): number {
    return this.#viewers.size;
  }

  get lastFrame(): EncodedFrame | null {
    return this.#screencast.last;
  }

  /** Title and address of the tab in front, for lists and dashboards. */
  get tabs(): TabInfo[] {
    return this.#tabs.list();
  }

  get page(): { title: string; url: string } {
    const tab = this.#tabs.list().find((t) => t.active);
    return { title: tab?.title ?? '', url: tab?.url ?? '' };
  }

  /** A small picture of the tab in front, for dashboards. */
  thumbnail(): Promise<{ jpeg: Uint8Array; source: 'screencast' | 'capture' } | null> {
    return this.#ended ? Promise.resolve(null) : this.#screencast.thumbnail();
  }

  /** Per viewer: frames sent and dropped, and what waits for it; the relay's memory is bounded by these. */
  viewerStats(): ViewerStats[] {
    return [...this.#viewers.values()].map((v) => ({
      id: v.id,
      name: v.name,
      sent: v.frames.sent,
      dropped: v.frames.dropped,
      waitingBytes: v.frames.waitingBytes,
      bufferedBytes: v.bufferedBytes?.() ?? null,
    }));
  }

  addViewer(viewer: Viewer, opts: { takeControl?: boolean } = {}): void {
    if (this.#ended) {
      viewer.send({ type: 'ended', ...this.#ended });
      return;
    }
    this.#viewers.set(viewer.id, viewer);
    this.control.join(viewer.id, viewer.name, { ...opts, userId: viewer.userId ?? null, watchOnly: viewer.watchOnly });
    viewer.send({ type: 'state', ...this.#state() });
    if (this.#dialog) viewer.send({ type: 'dialog', dialog: this.#dialog.info });
    // An idle page sends no frames: a newcomer gets the last one at once.
    const last = this.#screencast.last;
    if (last) viewer.frames.offer(last.bytes);
    this.#syncScreencast();
    this.#queueState();
  }

  removeViewer(id: string): void {
    const viewer = this.#viewers.get(id);
    if (!viewer) return;
    viewer.frames.close();
    this.#viewers.delete(id);
    this.control.leave(id);
    this.#syncScreencast();
    this.#queueState();
  }

  /** Act on one validated message from a viewer. */
  async handle(viewerId: string, msg: ClientMessage): Promise<void> {
    const viewer = this.#viewers.get(viewerId);
    if (!viewer || this.#ended) return;
    if (viewer.watchOnly && msg.type !== 'hello' && msg.type !== 'ping') {
      viewer.send({ type: 'error', code: 'not-in-control', message: 'this link only lets you watch' });
      return;
    }
    if (CONTROL_ONLY.has(msg.type) && this.control.controllerId !== viewerId) {
      viewer.send({ type: 'error', code: 'not-in-control', message: 'ask for control first' });
      return;
    }
    const page = this.#tabs.active;
    switch (msg.type) {
      case 'hello':
        return;
      case 'ping':
        return viewer.send({ type: 'pong', t: msg.t });
      case 'mouse':
        if (msg.action === 'move') return this.#input.move(mouseEvent(msg));
        return this.#input.send(() => page?.post('Input.dispatchMouseEvent', mouseEvent(msg)));
      case 'wheel':
        return this.#input.send(() => page?.post('Input.dispatchMouseEvent', wheelEvent(msg)));
      case 'key':
        return this.#input.send(() => page?.post('Input.dispatchKeyEvent', keyEvent(msg)));
      case 'text':
        return this.#input.send(() => page?.post('Input.insertText', { text: msg.text }));
      case 'compose':
        return this.#input.send(() =>
          page?.post('Input.imeSetComposition', { text: msg.text, selectionStart: msg.selectionStart, selectionEnd: msg.selectionEnd }),
        );
      case 'touch':
        return this.#input.send(() => page?.post('Input.dispatchTouchEvent', touchEvent(msg)));
      case 'navigate': {
        const plan = planNavigation(msg.url);
        if (!plan.ok) return viewer.send({ type: 'error', code: 'address-refused', message: plan.message });
        return void this.#navigate(viewer, plan.url, plan.fallback);
      }
      case 'history':
        return void this.#tabs.activeSession(ATTACH_WAIT_MS).then((p) => this.#run(viewer, p, (s) => this.#history(s, msg.action)));
      case 'tab':
        if (msg.action === 'open') {
          const plan = planNavigation(msg.url ?? 'about:blank');
          if (!plan.ok) return viewer.send({ type: 'error', code: 'address-refused', message: plan.message });
          await this.#tabs.open(plan.url).catch((err: Error) => viewer.send({ type: 'error', code: 'failed', message: err.message }));
          return;
        }
        if (!this.#tabs.has(msg.tabId)) return viewer.send({ type: 'error', code: 'no-such-tab', message: 'that tab is gone' });
        if (msg.action === 'switch') return this.#tabs.activate(msg.tabId);
        await this.#tabs.close(msg.tabId).catch((err: Error) => viewer.send({ type: 'error', code: 'failed', message: err.message }));
        return;
      case 'dialog': {
        const dialog = this.#dialog;
        if (!dialog) return;
        const session = this.#tabs.session(dialog.tabId);
        return this.#run(viewer, session, (p) => p.send('Page.handleJavaScriptDialog', { accept: msg.accept, promptText: msg.promptText }));
      }
      case 'copy': {
        if (!page) return;
        const r = await page.send('Runtime.evaluate', { expression: COPY_SELECTION, returnByValue: true }).catch(() => null);
        return viewer.send({ type: 'clipboard', text: typeof r?.result.value === 'string' ? r.result.value : '' });
      }
      case 'viewport':
        this.#viewport = { mode: msg.mode, width: msg.width, height: msg.height, mobile: msg.mode === 'follow' && msg.mobile };
        await this.#tabs.setViewport(this.#viewport);
        this.#screencast.resize(this.#viewport);
        return this.#queueState();
      case 'control':
        switch (msg.action) {
          case 'grant':
            if (!this.control.grant(viewerId, msg.viewerId)) {
              return viewer.send({
                type: 'error',
                code: 'not-in-control',
                message: 'only the viewer in control can hand it over, to someone watching',
              });
            }
            break;
          case 'decline':
            if (!this.control.decline(viewerId, msg.viewerId)) {
              return viewer.send({ type: 'error', code: 'not-in-control', message: 'only the viewer in control can answer a question' });
            }
            this.#viewers.get(msg.viewerId)?.send({ type: 'declined', by: viewer.name });
            break;
          case 'request':
            this.control.request(viewerId);
            break;
          case 'withdraw':
            this.control.withdraw(viewerId);
            break;
          case 'release':
            this.control.release(viewerId);
            break;
          case 'take':
            return this.#take(viewer);
        }
        return this.#queueState();
    }
  }

  /**
   * An owner or admin who asked takes control at once; whoever had it is told who took it. The role
   * is asked of the team's records now, not taken from the page, so a forged take is refused.
   */
  async #take(viewer: Viewer): Promise<void> {
    const refuse = (message: string) => viewer.send({ type: 'error', code: 'not-in-control', message });
    if (!(await viewer.mayTakeControl?.().catch(() => false))) return refuse('only team owners and admins can take control');
    if (this.#ended || !this.#viewers.has(viewer.id)) return;
    const from = this.control.take(viewer.id);
    if (from === null) return refuse('ask for control first; it can be taken only from someone else who has it');
    this.#taken = true;
    this.#viewers.get(from)?.send({ type: 'taken', by: viewer.name });
    this.#queueState();
  }

  /** End the instance: release /start (the service then ends the browser). */
  stop(): void {
    this.held.release();
  }

  /**
   * Open an address in the tab in front. A typed name without a scheme that cannot be reached over
   * https is tried over http, as a desktop browser does; why a page did not load reaches every
   * viewer as the tab's problem (lib/portal/live/page-problem.ts), not as raw error text.
   */
  async #navigate(viewer: Viewer, url: string, fallback: string | null): Promise<void> {
    const page = await this.#tabs.activeSession(ATTACH_WAIT_MS);
    const tabId = this.#tabs.activeId;
    if (!page || !tabId) return viewer.send({ type: 'error', code: 'failed', message: 'no page is open' });
    try {
      let opened = url;
      let { errorText } = await page.send('Page.navigate', { url });
      if (errorText && fallback && worthFallingBack(errorText)) {
        opened = fallback;
        ({ errorText } = await page.send('Page.navigate', { url: fallback }));
        if (!errorText && !this.#tabs.problemOf(tabId)) viewer.send({ type: 'insecure', url: fallback });
      }
      if (errorText) this.#tabs.noteFailure(tabId, opened, errorText);
    } catch (err) {
      viewer.send({ type: 'error', code: 'failed', message: (err as Error).message });
    }
  }

  async #run(viewer: Viewer, page: CdpSession | null, fn: (p: CdpSession) => Promise<unknown>): Promise<void> {
    if (!page) return viewer.send({ type: 'error', code: 'failed', message: 'no page is open' });
    try {
      const r = (await fn(page)) as { errorText?: string } | undefined;
      if (r?.errorText) viewer.send({ type: 'error', code: 'failed', message: r.errorText });
    } catch (err) {
      viewer.send({ type: 'error', code: 'failed', message: (err as Error).message });
    }
  }

  async #history(page: CdpSession, action: 'back' | 'forward' | 'reload' | 'stop'): Promise<void> {
    if (action === 'reload') return void (await page.send('Page.reload'));
    if (action === 'stop') return void (await page.send('Page.stopLoading'));
    const { currentIndex, entries } = await page.send('Page.getNavigationHistory');
    const entry = entries[currentIndex + (action === 'back' ? -1 : 1)];
    if (entry) await page.send('Page.navigateToHistoryEntry', { entryId: entry.id });
  }

  #state() {
    return {
      tabs: this.#tabs.list(),
      viewers: this.control.list(),
      controllerId: this.control.controllerId,
      viewport: { ...this.#viewport, mobile: this.#viewport.mobile ?? false },
    };
  }

  #queueState(): void {
    if (this.#stateQueued) return;
    this.#stateQueued = true;
    queueMicrotask(() => {
      this.#stateQueued = false;
      this.#noteHandover();
      const state = { type: 'state' as const, ...this.#state() };
      for (const v of this.#viewers.values()) v.send(state);
      this.emit('change');
    });
  }

  #noteHandover(): void {
    const id = this.control.controllerId;
    const viewer = id ? this.#viewers.get(id) : undefined;
    const now: ControlHolder | null = viewer ? { name: viewer.name, userId: viewer.userId } : null;
    const before = this.#lastController;
    const taken = this.#taken;
    this.#taken = false;
    if (before?.userId === now?.userId && before?.name === now?.name) return;
    this.#lastController = now;
    this.emit('controller', now);
    if (before && now) this.emit('handover', { from: before, to: now, taken });
  }

  #onDialog(tabId: string, info: DialogInfo | null): void {
    this.#dialog = info ? { tabId, info } : null;
    for (const v of this.#viewers.values()) v.send({ type: 'dialog', dialog: info });
  }

  /** The screencast runs while anyone watches and the browser lives. */
  #syncScreencast(): void {
    this.#screencast.sync(this.#viewers.size > 0 && !this.#ended);
  }

  #fanOut(frame: EncodedFrame): void {
    for (const v of this.#viewers.values()) v.frames.offer(frame.bytes);
    this.emit('frame', frame.meta);
  }

  #end(end: LiveEnd): void {
    if (this.#ended) return;
    this.#ended = end;
    for (const v of this.#viewers.values()) {
      v.frames.close();
      v.send({ type: 'ended', ...end });
    }
    this.#cdp.close();
    this.emit('ended', end);
  }
}
