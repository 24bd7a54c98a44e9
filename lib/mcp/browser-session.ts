import type { BrowserEnd, Periscope, RemoteBrowser } from '@periscope/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ToolInputError, titleOf, type TabSummary } from './snapshot.ts';

export type BrowserSessionOptions = {
  /** The client of the service, with the key of the MCP session's user. */
  periscope: Pick<Periscope, 'browsers'>;
  /** Stop the browser after this long without a browser tool call; 0: never. */
  idleMs: number;
  /**
   * Connect to DevTools at this origin (`ws://127.0.0.1:3100`) instead of the one the service
   * advertises: the service's own /mcp reaches its browsers over loopback.
   */
  devtoolsOrigin?: string;
  /** The live view of a browser in the portal, made from its id; undefined: no link is given. */
  liveViewUrl?: (browserId: string) => string;
  /** Time limits of Playwright's actions and navigations, in milliseconds. */
  actionTimeoutMs?: number;
  navigationTimeoutMs?: number;
};

type Held = { remote: RemoteBrowser; browser: Browser; context: BrowserContext };

/**
 * The Periscope browser of one MCP session: started on the session's first browser tool call, its
 * `/start` socket held while the session uses it, stopped when the session closes, when the
 * session leaves it idle, or by `browser_close`. One that ends for its own reasons (its lifetime,
 * stopped through the API) is replaced by a new one on the next call, which is told why.
 */
export class BrowserSession {
  readonly #options: BrowserSessionOptions;
  #held: Held | null = null;
  #starting: Promise<Held> | null = null;
  #current: Page | null = null;
  #idle: NodeJS.Timeout | null = null;
  /** Why the last browser ended, told with the next browser tool's answer. */
  #ended: string | null = null;
  #closed = false;
  /** Browser tool calls under way: the browser does not idle out while one runs. */
  #busy = 0;

  constructor(options: BrowserSessionOptions) {
    this.#options = options;
  }

  /** The live browser's id, or null. */
  get browserId(): string | null {
    return this.#held?.remote.id ?? null;
  }

  /** Whether a browser lives for this session now. */
  get active(): boolean {
    return this.#held !== null;
  }

  /** The portal's live view of the browser, when one is configured and a browser lives. */
  get liveViewUrl(): string | null {
    const id = this.browserId;
    return id && this.#options.liveViewUrl ? this.#options.liveViewUrl(id) : null;
  }

  /** Run one browser tool's work: the idle time counts from its end. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.#busy++;
    this.#clearIdle();
    try {
      return await work();
    } finally {
      this.#busy--;
      this.#touch();
    }
  }

  /**
   * The current tab, starting the browser (and opening a tab) when there is none. `notes` says
   * what happened on the way: a browser started, the previous one having ended and why.
   */
  async page(): Promise<{ page: Page; notes: string[] }> {
    this.#touch();
    const notes: string[] = [];
    if (this.#ended) notes.push(this.#ended);
    this.#ended = null;
    const startedNow = !this.#held;
    const held = await this.#browser();
    if (startedNow) {
      const live = this.liveViewUrl;
      notes.push(`Started Periscope browser ${held.remote.id}.${live ? ` Watch it live: ${live}` : ''}`);
    }
    if (!this.#current || this.#current.isClosed()) this.#current = held.context.pages().at(-1) ?? (await held.context.newPage());
    return { page: this.#current, notes };
  }

  /** The current tab if a browser lives and has one, without starting anything. */
  currentPage(): Page | null {
    this.#touch();
    return this.#current && !this.#current.isClosed() ? this.#current : null;
  }

  /** The open tabs, in their order. */
  async tabs(): Promise<TabSummary[]> {
    if (!this.#held) return [];
    const pages = this.#held.context.pages();
    return Promise.all(pages.map(async (p, index) => ({ index, current: p === this.#current, title: await titleOf(p), url: p.url() })));
  }

  /** Open a tab and make it current. */
  async newTab(): Promise<{ page: Page; notes: string[] }> {
    const { notes } = await this.page();
    const held = await this.#browser();
    this.#current = await held.context.newPage();
    return { page: this.#current, notes };
  }

  /** Make tab `index` current. */
  async selectTab(index: number): Promise<Page> {
    const page = this.#tab(index);
    this.#current = page;
    await page.bringToFront();
    return page;
  }

  /** Close tab `index` (default: the current one); the last tab becomes current. */
  async closeTab(index: number | undefined): Promise<void> {
    const page = index === undefined ? this.currentPage() : this.#tab(index);
    if (!page) throw new ToolInputError('No tab is open: there is nothing to close');
    await page.close();
    const pages = this.#held?.context.pages() ?? [];
    if (this.#current === page || !this.#current || this.#current.isClosed()) this.#current = pages.at(-1) ?? null;
  }

  /** Stop the browser (a later browser tool starts another); resolves once it has ended. */
  async stopBrowser(): Promise<BrowserEnd | null> {
    this.#clearIdle();
    const held = this.#held ?? (await this.#starting?.catch(() => null)) ?? null;
    this.#held = null;
    this.#starting = null;
    this.#current = null;
    if (!held) return null;
    await held.browser.close().catch(() => {});
    return held.remote.stop();
  }

  /** End the session: stop its browser; no browser is started after this. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.stopBrowser();
  }

  #tab(index: number): Page {
    const pages = this.#held?.context.pages() ?? [];
    const page = pages[index];
    if (!page)
      throw new ToolInputError(
        pages.length
          ? `No tab ${index}: the open tabs are 0 to ${pages.length - 1}`
          : 'No tab is open: use browser_navigate or browser_tabs new',
      );
    return page;
  }

  #browser(): Promise<Held> {
    if (this.#closed) return Promise.reject(new Error('This MCP session has ended'));
    if (this.#held) return Promise.resolve(this.#held);
    this.#starting ??= this.#start().then(
      (held) => {
        this.#starting = null;
        return held;
      },
      (err: unknown) => {
        this.#starting = null;
        throw err;
      },
    );
    return this.#starting;
  }

  async #start(): Promise<Held> {
    const remote = await this.#options.periscope.browsers.start();
    try {
      const browser = await this.#connect(remote);
      const context = browser.contexts()[0] ?? (await browser.newContext());
      context.setDefaultTimeout(this.#options.actionTimeoutMs ?? 5_000);
      context.setDefaultNavigationTimeout(this.#options.navigationTimeoutMs ?? 30_000);
      const held = { remote, browser, context };
      if (this.#closed) throw new Error('This MCP session has ended');
      this.#held = held;
      void remote.ended.then((end) => {
        if (this.#held !== held) return;
        this.#held = null;
        this.#current = null;
        this.#clearIdle();
        void browser.close().catch(() => {});
        this.#ended = `The previous browser ${remote.id} ended (${end.reason}${end.message ? `: ${end.message}` : ''}); a new one was started, so earlier tabs and refs are gone.`;
      });
      return held;
    } catch (err) {
      await remote.stop();
      throw err;
    }
  }

  #connect(remote: RemoteBrowser): Promise<Browser> {
    const origin = this.#options.devtoolsOrigin;
    if (!origin) return remote.connectPlaywright(chromium);
    const url = new URL(remote.webSocketDebuggerUrl);
    const local = new URL(origin);
    url.protocol = local.protocol;
    url.host = local.host;
    return chromium.connectOverCDP(url.toString(), { headers: { ...remote.headers }, timeout: 30_000 });
  }

  #touch(): void {
    this.#clearIdle();
    this.#armIdle();
  }

  #armIdle(): void {
    const idleMs = this.#options.idleMs;
    if (idleMs <= 0) return;
    this.#idle = setTimeout(() => {
      if (this.#busy > 0) return this.#armIdle();
      if (!this.#held) return;
      const id = this.#held.remote.id;
      void this.stopBrowser().then(() => {
        this.#ended = `The previous browser ${id} was stopped after ${Math.round(idleMs / 1000)} s without a browser tool call; a new one was started, so earlier tabs and refs are gone.`;
      });
    }, idleMs);
    this.#idle.unref();
  }

  #clearIdle(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
  }
}
