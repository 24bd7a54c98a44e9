import type { BrowserContext } from '@playwright/test';
import WebSocket from 'ws';
import { E2E_BASE_URL } from './portal-env.ts';

const WS = E2E_BASE_URL.replace('http', 'ws');

const cookieOf = async (context: BrowserContext): Promise<string> =>
  (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');

/** An open portal socket, the JSON messages it received so far, and its close code when it closes. */
export type Watched = { ws: WebSocket; opened: Promise<void>; closed: Promise<number>; messages: unknown[] };

/** A portal socket opened with a context's session (none: `null`), as the page would open it. */
export async function portalSocket(context: BrowserContext | null, path: string): Promise<Watched> {
  const headers: Record<string, string> = { origin: E2E_BASE_URL };
  if (context) headers.cookie = await cookieOf(context);
  const ws = new WebSocket(`${WS}${path}`, { headers });
  const messages: unknown[] = [];
  ws.on('message', (data, binary) => {
    if (!binary) messages.push(JSON.parse(data.toString()));
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => {});
  await opened;
  return { ws, opened, closed, messages };
}
