import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright';
import WebSocket from 'ws';
import { debuggerUrl, eventually, type StartedBrowser } from './browser.ts';

/**
 * A site with a login form, as a site's login is kept: POST /login sets a lasting session cookie
 * and its page stores a token in localStorage; /account says who is logged in by both.
 */
export const LOGIN_PAGE = `<!doctype html><html><head><title>Log in</title></head><body>
<form method="post" action="/login"><input name="user" id="user"><button id="go">Log in</button></form></body></html>`;

const accountPage = (cookie: string) => `<!doctype html><html><head><title>Account</title></head><body>
<p id="cookie">${cookie ? cookie.replace(/[^A-Za-z0-9=_-]/g, '') : 'no session cookie'}</p><p id="token"></p>
<script>document.getElementById('token').textContent = localStorage.getItem('token') || 'no token';</script></body></html>`;

export async function startLoginSite(): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/login') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const user = (new URLSearchParams(body).get('user') ?? '').replace(/[^A-Za-z0-9]/g, '');
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'set-cookie': `session=${user}; Path=/; Max-Age=86400; HttpOnly`,
        });
        res.end(
          `<!doctype html><title>Welcome</title><script>localStorage.setItem('token', 'token-of-${user}');</script><p id="done">ok</p>`,
        );
      });
    } else if (req.url === '/account') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(accountPage(req.headers.cookie ?? ''));
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(LOGIN_PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Open /start with a query (`profile=…&persist=1`); rejects with the refusal's status and body. */
export function startWith(wsUrl: string, token: string, query: string): Promise<StartedBrowser> {
  const socket = new WebSocket(`${wsUrl}/start${query ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('message', (data) => {
      const id = data.toString();
      resolve({ id, socket, closed, headers: { authorization: `Bearer ${token}`, 'x-browser-id': id } });
    });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`/start answered ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
    });
    socket.once('error', reject);
  });
}

/** Drive the browser with Playwright: `act` gets a new page of its default context. */
export async function withPage<T>(httpUrl: string, started: StartedBrowser, act: (page: Page) => Promise<T>): Promise<T> {
  const browser = await chromium.connectOverCDP(await debuggerUrl(httpUrl, started.headers), { headers: started.headers });
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = await context.newPage();
    try {
      return await act(page);
    } finally {
      await page.close().catch(() => {});
    }
  } finally {
    // Disconnects only: connectOverCDP's close leaves the remote browser running.
    await browser.close();
  }
}

/** Log in on the site as `user`. */
export async function logIn(httpUrl: string, started: StartedBrowser, site: string, user: string): Promise<void> {
  await withPage(httpUrl, started, async (page) => {
    await page.goto(`${site}/`);
    await page.fill('#user', user);
    await Promise.all([page.waitForSelector('#done'), page.click('#go')]);
  });
}

/** What the site's account page says: its session cookie and its localStorage token. */
export async function whoIsLoggedIn(httpUrl: string, started: StartedBrowser, site: string): Promise<{ cookie: string; token: string }> {
  return withPage(httpUrl, started, async (page) => {
    await page.goto(`${site}/account`);
    return { cookie: (await page.textContent('#cookie')) ?? '', token: (await page.textContent('#token')) ?? '' };
  });
}

export type ListedProfile = { name: string; bytes: number; updatedAt: string; inUse: boolean };

export async function listProfiles(httpUrl: string, token: string): Promise<ListedProfile[]> {
  const res = await fetch(`${httpUrl}/v0/profiles`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`/v0/profiles answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { profiles: ListedProfile[] }).profiles;
}

/**
 * End a persisting browser as its client does, and wait until its save is over (saved or refused):
 * its profile is let go only then, so it is listed and not in use.
 */
export async function endAndWaitForSave(
  httpUrl: string,
  token: string,
  started: StartedBrowser,
  name: string,
): Promise<ListedProfile | undefined> {
  started.socket.close();
  await started.closed;
  const list = await eventually(
    () => listProfiles(httpUrl, token),
    (l) => l.some((p) => p.name === name && !p.inUse),
    20_000,
  );
  return list.find((x) => x.name === name);
}
