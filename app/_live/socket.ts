/** A WebSocket to one of the portal's own socket paths, on the page's origin. */
export function openPortalSocket(path: string): WebSocket {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  return ws;
}

/** How long to wait before reconnect attempt `attempt` (0-based): doubling from 0.5 s, at most 10 s. */
export const reconnectDelayMs = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);
