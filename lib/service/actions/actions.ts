import type { Logger } from 'pino';
import { BadGateway, DomainError } from '#shared/errors.ts';
import {
  MAX_VIEWPORT,
  type FetchAnswer,
  type FetchRequest,
  type PdfRequest,
  type ScreenshotRequest,
  type WaitUntil,
} from '#shared/protocol/actions.ts';
import type { UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import type { Chromium } from '../browser/chromium.ts';
import type { BrowserFleet, Instance } from '../browser/fleet.ts';
import { refusalInWords } from '../browser/egress/refusal.ts';
import type { ApiKey } from '../keys/store.ts';
import { readPageExpression, type Extracted } from './extract.ts';
import { ActionPage, NavigationFailed, type Landed } from './page.ts';

/** The tallest full-page screenshot taken, in CSS pixels (Chromium's own texture limit is 16,384). */
export const MAX_SCREENSHOT_HEIGHT = 16_384;

export type ActionDeps = {
  fleet: BrowserFleet;
  /** The largest PDF answered (ACTIONS_MAX_PDF_MB). */
  maxPdfBytes: number;
  /** Why the egress proxy would not connect `host` (refused address and why, no such name, no answer). */
  explainUnreachable(host: string): Promise<string>;
  log: Logger;
};

type Common = { url: string; waitUntil: WaitUntil; timeoutMs: number };

/** How a call's browser reaches the web: straight out, or through the tenant's own proxy (X-Browser-Proxy). */
export type ActionRoute = { upstream: UpstreamProxy | null };

/** The call took longer than its `timeoutMs` (504). */
export class ActionTimedOut extends DomainError {
  constructor(ms: number, waitUntil: WaitUntil) {
    super('timeout', `the page did not reach "${waitUntil}" within ${ms} ms`);
  }
}

/**
 * The one-call page actions (docs/api.md, "Page actions"): each call takes an instance of the
 * caller's own key from the fleet (from the warm pool when one waits), opens the page in a tab of
 * the service's own, answers, and ends the instance. No Chromium ever serves two keys, and the
 * call counts against the key's concurrent browsers while it runs, as any browser does.
 */
export class PageActions {
  readonly #deps: ActionDeps;

  constructor(deps: ActionDeps) {
    this.#deps = deps;
  }

  /** The page as the browser rendered it: its main content in `format`, its title and links. */
  fetch(key: ApiKey, req: FetchRequest, signal: AbortSignal, route: ActionRoute = { upstream: null }): Promise<FetchAnswer> {
    return this.#inInstance(key, req, signal, route, { width: 1280, height: 800 }, async (page, landed) => {
      const read = await page.evaluateIsolated<Extracted>(readPageExpression(req.format));
      return {
        url: req.url,
        finalUrl: landed.finalUrl,
        status: landed.status,
        title: read.title,
        content: read.content,
        links: read.links,
      };
    });
  }

  /** The page as an image, of the viewport or of the whole page. */
  screenshot(key: ApiKey, req: ScreenshotRequest, signal: AbortSignal, route: ActionRoute = { upstream: null }): Promise<Buffer> {
    return this.#inInstance(key, req, signal, route, req.viewport, async (page) => {
      let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
      if (req.fullPage) {
        const { cssContentSize } = await page.send<{ cssContentSize: { width: number; height: number } }>('Page.getLayoutMetrics');
        clip = {
          x: 0,
          y: 0,
          width: Math.max(1, Math.min(MAX_VIEWPORT.width, Math.ceil(Math.max(cssContentSize.width, req.viewport.width)))),
          height: Math.max(1, Math.min(MAX_SCREENSHOT_HEIGHT, Math.ceil(cssContentSize.height))),
          scale: 1,
        };
      }
      const { data } = await page.send<{ data: string }>('Page.captureScreenshot', {
        format: req.format,
        ...(req.quality !== undefined ? { quality: req.quality } : {}),
        ...(clip ? { clip, captureBeyondViewport: true } : {}),
      });
      return Buffer.from(data, 'base64');
    });
  }

  /** The page printed as a PDF. */
  pdf(key: ApiKey, req: PdfRequest, signal: AbortSignal, route: ActionRoute = { upstream: null }): Promise<Buffer> {
    return this.#inInstance(key, req, signal, route, { width: 1280, height: 800 }, async (page) => {
      try {
        // As a stream, read with a limit: a hostile page can print to any size.
        const { stream } = await page.send<{ stream: string }>('Page.printToPDF', {
          transferMode: 'ReturnAsStream',
          landscape: req.landscape,
          printBackground: req.printBackground,
          scale: req.scale,
          paperWidth: req.paper.width,
          paperHeight: req.paper.height,
          marginTop: req.margin.top,
          marginRight: req.margin.right,
          marginBottom: req.margin.bottom,
          marginLeft: req.margin.left,
          ...(req.pageRanges ? { pageRanges: req.pageRanges } : {}),
        });
        return await readStream(page, stream, this.#deps.maxPdfBytes);
      } catch (err) {
        // Chromium refuses a range past the document's last page ("Page range exceeds page count").
        if (req.pageRanges && /page range/i.test((err as Error).message))
          throw new DomainError('invalid', `pageRanges "${req.pageRanges}" names pages the document does not have`, {
            issues: [{ field: 'pageRanges', message: 'names pages the document does not have' }],
          });
        throw err;
      }
    });
  }

  async #inInstance<T>(
    key: ApiKey,
    req: Common,
    signal: AbortSignal,
    route: ActionRoute,
    viewport: { width: number; height: number },
    work: (page: ActionPage, landed: Landed) => Promise<T>,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const stop = AbortSignal.any([signal, timeout]);
    const stopped = () =>
      timeout.aborted ? new ActionTimedOut(req.timeoutMs, req.waitUntil) : new DomainError('bad_request', 'the client went away');
    const provisioning = this.#deps.fleet.provision(key, { upstream: route.upstream });
    let instance: Instance | null = null;
    let page: ActionPage | null = null;
    try {
      instance = await until(provisioning, stop, stopped);
      page = await until(ActionPage.open(instance.browser.mux, viewport), stop, stopped);
      const landed = await until(this.#open(page, req, instance.browser), stop, stopped);
      return await until(work(page, landed), stop, stopped);
    } finally {
      page?.close();
      // Ended after the answer is known, not awaited by it: the instance stops counting at once.
      if (instance) void this.#deps.fleet.end(instance.id, 'client-closed');
      else void provisioning.then((late) => this.#deps.fleet.end(late.id, 'client-closed')).catch(() => {});
    }
  }

  /** Navigate, and turn what stopped the page from loading into words (502). */
  async #open(page: ActionPage, req: Common, browser: Chromium): Promise<Landed> {
    let landed: Landed;
    try {
      landed = await page.navigate(req.url, req.waitUntil);
    } catch (err) {
      if (!(err instanceof NavigationFailed)) throw err;
      throw new BadGateway(`could not open ${req.url}: ${await this.#why(err, req.url, browser)}`);
    }
    // Only a plain-http answer can be the egress proxy's own (docs/api.md, "Network egress").
    const refusal = landed.finalUrl.startsWith('http:') ? landed.headers['x-periscope-egress'] : undefined;
    if (refusal) {
      const detail = landed.headers['x-periscope-egress-detail'] ?? '';
      throw new BadGateway(`could not open ${req.url}: ${refusalInWords(refusal)}${detail ? ` (${detail})` : ''}`);
    }
    return landed;
  }

  async #why(err: NavigationFailed, url: string, browser: Chromium): Promise<string> {
    const code = err.errorText;
    if (code === 'net::ERR_TUNNEL_CONNECTION_FAILED' || code === 'net::ERR_PROXY_CONNECTION_FAILED') {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      // Through the tenant's own proxy, the instance remembers why its last connection there failed.
      const why =
        browser.egressFailure(host) ?? (await this.#deps.explainUnreachable(host).catch(() => 'the egress proxy did not connect it'));
      return `${code}: ${why}`;
    }
    if (code === 'net::ERR_ABORTED') return `${code}: the address did not open as a page (a download, or the page navigated away at once)`;
    return code;
  }
}

/** The bytes of a CDP stream (`IO.read`), refused (502) as soon as they pass `max`; the stream is closed either way. */
async function readStream(page: ActionPage, handle: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const part = await page.send<{ data: string; base64Encoded?: boolean; eof: boolean }>('IO.read', { handle, size: 1 << 20 });
      const bytes = Buffer.from(part.data, part.base64Encoded ? 'base64' : 'latin1');
      size += bytes.length;
      if (size > max)
        throw new BadGateway(`the page prints to more than ${Math.round(max / 1024 / 1024)} MB of PDF; ask for fewer pages (pageRanges)`);
      chunks.push(bytes);
      if (part.eof) return Buffer.concat(chunks);
    }
  } finally {
    await page.send('IO.close', { handle }).catch(() => {});
  }
}

/** `work`, unless `signal` aborts first: then the error `stopped` makes. */
function until<T>(work: Promise<T>, signal: AbortSignal, stopped: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
