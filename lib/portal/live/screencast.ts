import type { Protocol } from 'devtools-protocol/types/protocol.js';
import type { Logger } from 'pino';
import { encodeFrame, type FrameMeta } from '../protocol/live.ts';
import type { Tabs, Viewport } from './tabs.ts';

export type EncodedFrame = { meta: FrameMeta; bytes: Uint8Array };

/**
 * The one screencast of a browser: it runs on the tab in front while anyone watches and nowhere
 * else, turns each Chromium frame into a binary message for the viewers, acknowledges it once
 * handed on, and keeps the latest for newcomers and thumbnails.
 */
export class Screencast {
  readonly #tabs: Tabs;
  readonly #quality: number;
  readonly #log: Logger;
  readonly #deliver: (frame: EncodedFrame) => void;
  #on: string | null = null;
  #size: Viewport;
  #last: EncodedFrame | null = null;
  #lastJpeg: Uint8Array | null = null;
  #seq = 0;

  constructor(tabs: Tabs, opts: { quality: number; log: Logger; size: Viewport; deliver: (frame: EncodedFrame) => void }) {
    this.#tabs = tabs;
    this.#quality = opts.quality;
    this.#log = opts.log;
    this.#size = opts.size;
    this.#deliver = opts.deliver;
    tabs.on('frame', (tabId, frame) => this.#relay(tabId, frame));
  }

  get last(): EncodedFrame | null {
    return this.#last;
  }

  get running(): boolean {
    return this.#on !== null;
  }

  /** Run on the tab in front when `wanted`, else stop. */
  sync(wanted: boolean): void {
    const want = wanted ? this.#tabs.activeId : null;
    if (want === this.#on && (want === null || this.#tabs.active)) return;
    if (this.#on) this.#tabs.session(this.#on)?.post('Page.stopScreencast');
    this.#on = null;
    const session = want ? this.#tabs.active : null;
    if (!want || !session) return;
    this.#on = want;
    const { width, height } = this.#size;
    session.post(
      'Page.startScreencast',
      { format: 'jpeg', quality: this.#quality, maxWidth: width, maxHeight: height, everyNthFrame: 1 },
      (err) => this.#log.warn({ err }, 'screencast did not start'),
    );
  }

  /** Start again at a new size (the viewport changed). */
  resize(size: Viewport): void {
    this.#size = size;
    const wanted = this.#on !== null;
    if (this.#on) this.#tabs.session(this.#on)?.post('Page.stopScreencast');
    this.#on = null;
    this.sync(wanted);
  }

  /** The latest frame while the screencast runs (no extra work for Chromium), else a quarter-size screenshot. */
  async thumbnail(): Promise<{ jpeg: Uint8Array; source: 'screencast' | 'capture' } | null> {
    if (this.#on && this.#lastJpeg) return { jpeg: this.#lastJpeg, source: 'screencast' };
    const page = this.#tabs.active;
    if (!page) return null;
    try {
      const { cssVisualViewport: v } = await page.send('Page.getLayoutMetrics');
      const shot = await page.send('Page.captureScreenshot', {
        format: 'jpeg',
        quality: 50,
        clip: {
          x: v.pageX,
          y: v.pageY,
          width: v.clientWidth,
          height: v.clientHeight,
          scale: Math.min(1, 320 / Math.max(1, v.clientWidth)),
        },
      });
      return { jpeg: Buffer.from(shot.data, 'base64'), source: 'capture' };
    } catch {
      return null;
    }
  }

  #relay(tabId: string, frame: Protocol.Page.ScreencastFrameEvent): void {
    const receivedAt = performance.timeOrigin + performance.now();
    const session = this.#tabs.session(tabId);
    const m = frame.metadata;
    const meta: FrameMeta = {
      seq: ++this.#seq,
      tabId,
      deviceWidth: m.deviceWidth,
      deviceHeight: m.deviceHeight,
      offsetTop: m.offsetTop,
      pageScaleFactor: m.pageScaleFactor,
      scrollOffsetX: m.scrollOffsetX,
      scrollOffsetY: m.scrollOffsetY,
      timestamp: (m.timestamp ?? 0) * 1000,
      relayedAt: receivedAt,
    };
    const jpeg = Buffer.from(frame.data, 'base64');
    this.#last = { meta, bytes: encodeFrame(meta, jpeg) };
    this.#lastJpeg = jpeg;
    this.#deliver(this.#last);
    // Acknowledge once handed on, so Chromium paces itself to what the relay can pass on.
    session?.post('Page.screencastFrameAck', { sessionId: frame.sessionId });
  }
}
