import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** Request headers that stay with us: our credentials, and the ones we set for Chromium. */
const DROPPED = new Set(['authorization', 'x-browser-id', 'host', 'origin', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);

export type Traffic = { toBrowser: number; toClient: number };

export type Splice = {
  /** Settles when both sides have closed. */
  closed: Promise<void>;
  destroy: () => void;
  /** Bytes relayed so far each way, read from the socket counters (nothing is counted per chunk). */
  traffic: () => Traffic;
};

/**
 * Hand an authorised WebSocket upgrade straight to Chromium's DevTools server and splice the two
 * TCP streams. Chromium answers the handshake itself, so every CDP message, frame size and
 * extension passes through untouched, and the stream pipes carry backpressure both ways.
 */
export function spliceDevtools(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  upstream: { host: string; port: number; path: string },
): Splice {
  const browser = connect({ host: upstream.host, port: upstream.port, noDelay: true });
  if ('setNoDelay' in client && typeof client.setNoDelay === 'function') client.setNoDelay(true);
  const lines = [`GET ${upstream.path} HTTP/1.1`, `Host: ${upstream.host}:${upstream.port}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!DROPPED.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  const handshake = `${lines.join('\r\n')}\r\n\r\n`;
  const destroy = () => {
    client.destroy();
    browser.destroy();
  };
  const closed = new Promise<void>((resolve) => {
    let open = 2;
    const done = () => {
      if (--open === 0) resolve();
    };
    client.once('close', () => {
      browser.destroy();
      done();
    });
    browser.once('close', () => {
      client.destroy();
      done();
    });
  });
  browser.on('error', destroy);
  client.on('error', destroy);
  browser.once('connect', () => {
    browser.write(handshake);
    if (head.length) browser.write(head);
    browser.pipe(client);
    client.pipe(browser);
  });
  const traffic = () => ({
    toBrowser: Math.max(0, browser.bytesWritten - Buffer.byteLength(handshake)),
    toClient: browser.bytesRead,
  });
  return { closed, destroy, traffic };
}
