import type { WebSocket } from 'ws';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import { LIVE_CLOSE } from '#portal/protocol/live.ts';
import type { Logger } from '#shared/log.ts';

/** Messages a viewer may send before the holding node has answered; more is abuse. */
const EARLY_LIMIT = 64;

/** Close codes a socket may send on: the standard ones an endpoint sends, and the application range. */
const sendable = (code: number) => (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);

/**
 * Relay a viewer's socket on this node to the node that holds the browser (decision 0095), both
 * speaking the live view's protocol (lib/portal/protocol/live.ts), which the holding node checks.
 * Frames pass through a FrameSlot, as on the holding node: a slow viewer here costs two frames of
 * memory and slows nobody. The holder's close code reaches the viewer; a holder that goes away
 * without one (it died, and its browsers with it) closes the view as ended (4410).
 */
export function relayToHolder(client: WebSocket, upstream: WebSocket, log: Logger): void {
  const frames = new FrameSlot({
    send: (data, done) => (client.readyState === client.OPEN ? client.send(data, { binary: true }, done) : done(new Error('closed'))),
  });
  const early: { data: Buffer; binary: boolean }[] = [];
  const closeClient = (code: number, reason: string) => {
    frames.close();
    if (client.readyState === client.OPEN || client.readyState === client.CONNECTING) client.close(code, reason);
  };

  client.on('message', (data, isBinary) => {
    const bytes = data as Buffer;
    if (upstream.readyState === upstream.OPEN) return upstream.send(bytes, { binary: isBinary });
    if (upstream.readyState !== upstream.CONNECTING) return;
    if (early.length >= EARLY_LIMIT) return closeClient(LIVE_CLOSE.abuse.code, LIVE_CLOSE.abuse.reason);
    early.push({ data: bytes, binary: isBinary });
  });
  upstream.once('open', () => {
    for (const m of early.splice(0)) upstream.send(m.data, { binary: m.binary });
  });
  upstream.on('message', (data, isBinary) => {
    const bytes = data as Buffer;
    if (isBinary) frames.offer(bytes);
    else if (client.readyState === client.OPEN) client.send(bytes, { binary: false });
  });
  upstream.once('unexpected-response', (req, res) => {
    req.destroy();
    // 404: the browser ended between the lookup and now. Anything else is the cluster's fault (a
    // secret that differs between nodes, a proxy in the way): the operator hears of it.
    if (res.statusCode === 404) return closeClient(LIVE_CLOSE.ended.code, LIVE_CLOSE.ended.reason);
    log.error({ status: res.statusCode }, 'the holding portal node refused a relayed viewer');
    closeClient(1011, 'the portal node holding this browser refused the relay');
  });
  // What the viewer sees of it is the close that follows.
  upstream.on('error', (err) => log.debug({ err }, 'relay to the holding portal node failed'));
  upstream.once('close', (code, reason) => {
    if (sendable(code)) closeClient(code, reason.toString());
    else closeClient(LIVE_CLOSE.ended.code, LIVE_CLOSE.ended.reason);
  });
  client.on('error', () => client.terminate());
  client.once('close', () => {
    frames.close();
    if (upstream.readyState === upstream.CONNECTING) upstream.terminate();
    else if (upstream.readyState === upstream.OPEN) upstream.close(1000, 'viewer left');
  });
}
