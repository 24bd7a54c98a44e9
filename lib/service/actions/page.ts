import type { CdpMux } from '../browser/cdp-mux.ts';
import type { WaitUntil } from '#shared/protocol/actions.ts';

type Params = Record<string, unknown>;

/** Chromium's lifecycle event for each `waitUntil`. */
const LIFECYCLE: Record<WaitUntil, string> = { load: 'load', domcontentloaded: 'DOMContentLoaded', networkidle: 'networkIdle' };

/** Where a navigation ended: the page's own document, as the browser received it. */
export type Landed = { status: number; finalUrl: string; headers: Record<string, string> };

/** The browser could not open the address (`net::ERR_…`), with the response's headers when one came. */
export class NavigationFailed extends Error {
  readonly errorText: string;
  readonly url: string;

  constructor(errorText: string, url: string) {
    super(`${errorText} opening ${url}`);
    this.errorText = errorText;
    this.url = url;
  }
}

/**
 * One tab that the service opens for itself in an instance, on a session of its own on the
 * browser's pipe (no client sees it), for one page action: navigate, wait, then read or print.
 */
export class ActionPage {
  readonly #mux: CdpMux;
  readonly #session: string;
  readonly #frameId: string;
  readonly #listeners = new Set<(method: string, params: Params) => void>();
  readonly #onEvent = (sessionId: string, method: string, params: Params) => {
    if (sessionId === this.#session) for (const l of this.#listeners) l(method, params);
  };

  private constructor(mux: CdpMux, session: string, frameId: string) {
    this.#mux = mux;
    this.#session = session;
    this.#frameId = frameId;
    mux.serviceEvents.on('event', this.#onEvent);
  }

  /** A new blank tab with `viewport`, its page, network and lifecycle events on. */
  static async open(mux: CdpMux, viewport: { width: number; height: number }): Promise<ActionPage> {
    const { targetId } = await mux.call<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await mux.call<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const send = (method: string, params: Params = {}) => mux.call(method, params, sessionId);
    await Promise.all([
      send('Page.enable'),
      send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
      send('Page.setLifecycleEventsEnabled', { enabled: true }),
      send('Emulation.setDeviceMetricsOverride', { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: false }),
    ]);
    const { frameTree } = await mux.call<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree', {}, sessionId);
    return new ActionPage(mux, sessionId, frameTree.frame.id);
  }

  send<T = Params>(method: string, params: Params = {}): Promise<T> {
    return this.#mux.call<T>(method, params, this.#session);
  }

  /**
   * Open `url` and wait for `waitUntil` in the main frame. Resolves with the status and address
   * of the document the main frame ended on (after redirects); rejects with NavigationFailed when
   * the browser could not load it at all.
   */
  async navigate(url: string, waitUntil: WaitUntil): Promise<Landed> {
    let landed: Landed | null = null;
    let loader: string | null = null;
    let resolveWait!: () => void;
    const reached = new Promise<void>((resolve) => (resolveWait = resolve));
    // Lifecycle events by loader: those of this navigation's loader may come before Page.navigate's reply.
    const seen = new Map<string, Set<string>>();
    const want = LIFECYCLE[waitUntil];
    const reachedBy = (id: string) => seen.get(id)?.has(want) ?? false;
    const listener = (method: string, params: Params) => {
      if (method === 'Network.responseReceived' && params.type === 'Document' && params.frameId === this.#frameId) {
        const r = params.response as { status: number; url: string; headers: Record<string, string> };
        landed = { status: r.status, finalUrl: r.url, headers: lowerCase(r.headers) };
      } else if (method === 'Page.lifecycleEvent' && params.frameId === this.#frameId) {
        const id = String(params.loaderId);
        if (!seen.has(id)) seen.set(id, new Set());
        seen.get(id)?.add(String(params.name));
        // Only the loader this navigation started counts (a page's own later navigation starts another).
        if (loader !== null && id === loader && reachedBy(id)) resolveWait();
      }
    };
    this.#listeners.add(listener);
    try {
      const nav = await this.send<{ loaderId?: string; errorText?: string }>('Page.navigate', { url });
      if (nav.errorText) throw new NavigationFailed(nav.errorText, url);
      loader = nav.loaderId ?? null;
      // No loader: a navigation within the document (a fragment), already complete.
      if (loader === null || reachedBy(loader)) resolveWait();
      await reached;
      const { frameTree } = await this.send<{ frameTree: { frame: { url: string } } }>('Page.getFrameTree');
      const found = landed as Landed | null;
      return { status: found?.status ?? 200, finalUrl: frameTree.frame.url || found?.finalUrl || url, headers: found?.headers ?? {} };
    } finally {
      this.#listeners.delete(listener);
    }
  }

  /**
   * Evaluate `expression` in a JavaScript world of the service's own in the main frame: it sees
   * the page's DOM, but none of the page's scripts can reach or replace what it defines.
   */
  async evaluateIsolated<T>(expression: string): Promise<T> {
    const { executionContextId } = await this.send<{ executionContextId: number }>('Page.createIsolatedWorld', {
      frameId: this.#frameId,
      worldName: 'periscope-action',
      grantUniveralAccess: false,
    });
    const reply = await this.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
      'Runtime.evaluate',
      { expression, contextId: executionContextId, returnByValue: true, awaitPromise: true },
    );
    if (reply.exceptionDetails) throw new Error(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
    return reply.result.value as T;
  }

  /** Stop listening; the tab goes with its instance. */
  close(): void {
    this.#mux.serviceEvents.off('event', this.#onEvent);
    this.#listeners.clear();
  }
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
