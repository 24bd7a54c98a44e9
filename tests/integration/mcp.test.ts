import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Periscope } from '@periscope/client';
import { eventually } from '../helpers/eventually.ts';
import { page, runIndex } from '../helpers/search.ts';
import { ROOT, startService, type ServiceProcess } from '../helpers/service.ts';

/** A tiny site to drive: a page with a button and a link, a form that greets, keys shown as pressed. */
const HOME = `<!doctype html><html><head><title>MCP fixture</title></head><body>
<h1 id="heading">Welcome</h1>
<button onclick="document.getElementById('heading').textContent = 'Clicked ' + (++window.clicks)">Click me</button>
<a href="/form">Go to the form</a>
<script>window.clicks = 0;</script>
</body></html>`;
const FORM = `<!doctype html><html><head><title>MCP form</title></head><body>
<form onsubmit="event.preventDefault(); document.getElementById('greeting').textContent = 'Hello, ' + document.getElementById('name').value;">
  <label for="name">Your name</label><input id="name">
  <button type="submit">Send</button>
</form>
<p id="greeting">Nobody yet</p>
<p id="keys">No key</p>
<script>document.addEventListener('keydown', (e) => { if (e.key !== 'Enter') document.getElementById('keys').textContent = 'Pressed ' + e.key; });</script>
</body></html>`;

/** A page whose snapshot is longer than a small MCP_MAX_TEXT_CHARS. */
const LONG = `<!doctype html><html><head><title>Long</title></head><body><ul>${Array.from({ length: 400 }, (_, i) => `<li><a href="/item/${i}">Item ${i}</a></li>`).join('')}</ul></body></html>`;

const BROWSER_TOOLS = [
  'browser_click',
  'browser_close',
  'browser_navigate',
  'browser_navigate_back',
  'browser_press_key',
  'browser_snapshot',
  'browser_tabs',
  'browser_take_screenshot',
  'browser_type',
];

async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = req.url === '/' ? HOME : req.url === '/form' ? FORM : req.url === '/long' ? LONG : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const textOf = (result: unknown): string =>
  (result as CallToolResult).content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');

/** The ref a snapshot gives the element of this role and name. */
function refOf(text: string, role: string, name: string): string {
  const m = new RegExp(`${role} "${name}"[^\\n]*\\[ref=((?:f\\d+)?e\\d+)\\]`).exec(text);
  assert.ok(m?.[1], `no ${role} "${name}" with a ref in:\n${text}`);
  return m[1];
}

const browserIdOf = (text: string): string => {
  const m = /Started Periscope browser (br_[A-Za-z0-9_-]{32})/.exec(text);
  assert.ok(m?.[1], `no started browser in:\n${text}`);
  return m[1];
};

describe('MCP server', () => {
  let service: ServiceProcess;
  let site: { url: string; server: Server };
  let key: string;
  let periscope: Periscope;

  before(async () => {
    const docs = mkdtempSync(join(tmpdir(), 'periscope-mcp-site-'));
    mkdirSync(join(docs, 'guide'));
    writeFileSync(
      join(docs, 'guide', 'kettle.html'),
      page('Descaling the kettle', '<h1>Descaling the kettle</h1><p>Use citric acid to descale the kettle every month.</p>'),
    );
    writeFileSync(join(docs, 'index.html'), page('Falcot handbook', '<h1>Falcot handbook</h1><p>Routers and kettles of Falcot Corp.</p>'));
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const indexed = runIndex(dataDir, [docs, '--base-url', 'https://docs.falcot.test/', '--quiet']);
    assert.equal(indexed.status, 0, indexed.stderr);
    service = await startService({ DATA_DIR: dataDir, BROWSER_EGRESS_ALLOW: '127.0.0.1/32', MCP_SESSION_IDLE_SECONDS: '5' });
    site = await startSite();
    key = service.createKey({ name: 'mcp', maxInstances: 4 }).token;
    periscope = new Periscope({ apiKey: key, baseUrl: service.url });
  });
  after(async () => {
    site?.server.closeAllConnections();
    site?.server.close();
    await service?.stop();
  });

  const stdioClient = async (env: Record<string, string> = {}) => {
    const client = new Client({ name: 'periscope-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'server/cli/mcp.ts')],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PERISCOPE_URL: service.url, PERISCOPE_API_KEY: key, ...env },
      stderr: 'pipe',
    });
    await client.connect(transport);
    return { client, transport };
  };

  const httpClient = async (apiKey = key) => {
    const client = new Client({ name: 'periscope-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    });
    await client.connect(transport);
    return { client, transport };
  };

  const ended = async (id: string) => {
    const list = await eventually(
      () => periscope.browsers.list(),
      (l) => l.some((b) => b.id === id && b.status === 'ended'),
      10_000,
    );
    return list.find((b) => b.id === id);
  };

  /** Every tool, as an agent would use them, over one connected client; returns the browser's id. */
  async function exercise(client: Client): Promise<string> {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['fetch', 'search', ...BROWSER_TOOLS].sort());
    const click = tools.find((t) => t.name === 'browser_click');
    assert.deepEqual(click?.inputSchema.required?.slice().sort(), ['element', 'ref']);
    const type = tools.find((t) => t.name === 'browser_type');
    assert.deepEqual(Object.keys(type?.inputSchema.properties ?? {}).sort(), ['element', 'ref', 'slowly', 'submit', 'text']);

    const found = await client.callTool({ name: 'search', arguments: { query: 'descale kettle', count: 5, language: 'en' } });
    assert.equal(found.isError, undefined, textOf(found));
    assert.match(textOf(found), /\[Descaling the kettle\]\(https:\/\/docs\.falcot\.test\/guide\/kettle\.html\)/);

    const read = await client.callTool({ name: 'fetch', arguments: { url: `${site.url}/` } });
    assert.equal(read.isError, undefined, textOf(read));
    assert.match(textOf(read), /^### MCP fixture\n- URL: http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(textOf(read), /Welcome/, 'the page as Markdown');
    const badFetch = await client.callTool({ name: 'fetch', arguments: { url: 'not an address' } });
    assert.equal(badFetch.isError, true);
    assert.match(textOf(badFetch), /url/);

    const opened = await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/` } });
    assert.equal(opened.isError, undefined, textOf(opened));
    let text = textOf(opened);
    const id = browserIdOf(text);
    assert.match(text, /### Ran Playwright code\n```js\nawait page\.goto\("http:\/\/127\.0\.0\.1:\d+\/"\);/);
    assert.match(text, /- Page Title: MCP fixture/);
    assert.match(text, /heading "Welcome"/);

    const snapshot = textOf(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    assert.doesNotMatch(snapshot, /Started Periscope browser/, 'the browser is started once');
    text = textOf(
      await client.callTool({
        name: 'browser_click',
        arguments: { element: 'Click me button', ref: refOf(snapshot, 'button', 'Click me') },
      }),
    );
    assert.match(text, /heading "Clicked 1"/);
    assert.match(text, /await page\.getByRole\('button', \{ name: 'Click me' \}\)\.click\(\);/);

    text = textOf(
      await client.callTool({ name: 'browser_click', arguments: { element: 'form link', ref: refOf(text, 'link', 'Go to the form') } }),
    );
    assert.match(text, /- Page URL: http:\/\/127\.0\.0\.1:\d+\/form/);
    const typed = await client.callTool({
      name: 'browser_type',
      arguments: { element: 'name field', ref: refOf(text, 'textbox', 'Your name'), text: 'Ada', submit: true },
    });
    assert.equal(typed.isError, undefined, textOf(typed));
    assert.match(textOf(typed), /Hello, Ada/);
    const pressed = await client.callTool({ name: 'browser_press_key', arguments: { key: 'ArrowDown' } });
    assert.match(textOf(pressed), /Pressed ArrowDown/);

    const shot = (await client.callTool({ name: 'browser_take_screenshot', arguments: {} })) as CallToolResult;
    const image = shot.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
    assert.equal(image?.mimeType, 'image/png');
    assert.deepEqual([...Buffer.from(image.data, 'base64').subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const jpeg = (await client.callTool({
      name: 'browser_take_screenshot',
      arguments: { type: 'jpeg', fullPage: true },
    })) as CallToolResult;
    const jpegImage = jpeg.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
    assert.equal(jpegImage?.mimeType, 'image/jpeg');
    assert.deepEqual([...Buffer.from(jpegImage.data, 'base64').subarray(0, 2)], [0xff, 0xd8]);

    text = textOf(await client.callTool({ name: 'browser_navigate_back', arguments: {} }));
    assert.match(text, /- Page Title: MCP fixture/);
    const button = (await client.callTool({
      name: 'browser_take_screenshot',
      arguments: { element: 'Click me button', ref: refOf(text, 'button', 'Click me') },
    })) as CallToolResult;
    assert.match(textOf(button), /await page\.getByRole\('button', \{ name: 'Click me' \}\)\.screenshot\(\{ type: "png" \}\);/);
    const buttonImage = button.content.find((c) => c.type === 'image') as { data: string } | undefined;
    assert.ok(buttonImage && Buffer.from(buttonImage.data, 'base64').length < Buffer.from(image.data, 'base64').length, 'only the element');
    const half = await client.callTool({ name: 'browser_take_screenshot', arguments: { element: 'Click me button' } });
    assert.equal(half.isError, true);
    assert.match(textOf(half), /Both element and ref must be provided, or neither/);

    text = textOf(await client.callTool({ name: 'browser_tabs', arguments: { action: 'new' } }));
    assert.match(text, /- 0: \[MCP fixture\]/);
    assert.match(text, /- 1: \(current\) \[\] \(about:blank\)/);
    text = textOf(await client.callTool({ name: 'browser_tabs', arguments: { action: 'select', index: 0 } }));
    assert.match(text, /- 0: \(current\) \[MCP fixture\]/);
    text = textOf(await client.callTool({ name: 'browser_tabs', arguments: { action: 'close', index: 1 } }));
    assert.doesNotMatch(text, /- 1:/);
    text = textOf(await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    assert.match(text, /^### Open tabs\n- 0: \(current\) \[MCP fixture\]/);

    // Malformed calls are tool errors the model can read, and the session goes on.
    const missing = await client.callTool({ name: 'browser_click', arguments: { element: 'a button' } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /Input validation error.*ref/s);
    const wrongType = await client.callTool({ name: 'search', arguments: { query: 'kettle', count: 'many' } });
    assert.equal(wrongType.isError, true);
    assert.match(textOf(wrongType), /count/);
    const stale = await client.callTool({ name: 'browser_click', arguments: { element: 'ghost', ref: 'e9999' } });
    assert.equal(stale.isError, true);
    assert.match(textOf(stale), /"ghost" \(ref e9999\) is not in the current page.*browser_snapshot/s);
    const notRef = await client.callTool({ name: 'browser_type', arguments: { element: 'x', ref: '#name', text: 'y' } });
    assert.match(textOf(notRef), /"#name" is not an element reference/);
    const badKey = await client.callTool({ name: 'browser_press_key', arguments: { key: 'NoSuchKey' } });
    assert.equal(badKey.isError, true);
    assert.match(textOf(badKey), /Unknown key: "NoSuchKey"/);
    const unknown = await client.callTool({ name: 'browser_fly', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /Tool browser_fly not found/);
    const still = await client.callTool({ name: 'browser_snapshot', arguments: {} });
    assert.equal(still.isError, undefined, 'the session goes on after the errors');
    return id;
  }

  it('serves every tool over stdio (npm run mcp), and its browser ends with the session', async () => {
    const { client } = await stdioClient({ PERISCOPE_PORTAL_URL: 'https://portal.example.test/teams/t_1' });
    let id = '';
    try {
      id = await exercise(client);
      const live = await periscope.browsers.list({ status: 'live' });
      assert.ok(live.some((b) => b.id === id));
      const closed = textOf(await client.callTool({ name: 'browser_close', arguments: {} }));
      assert.match(closed, new RegExp(`Stopped Periscope browser ${id}`));
      assert.equal((await ended(id))?.endReason, 'client-closed');

      const again = textOf(await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/form` } }));
      const second = browserIdOf(again);
      assert.notEqual(second, id, 'a browser tool after browser_close starts a new browser');
      assert.match(again, new RegExp(`Watch it live: https://portal\\.example\\.test/teams/t_1/browsers/${second}`));
      id = second;
    } finally {
      await client.close();
    }
    assert.equal((await ended(id))?.status, 'ended', 'closing the client ended its browser');
  });

  it('stops an idle stdio session’s browser, says so when a browser tool starts another, and cuts long snapshots', async () => {
    const { client } = await stdioClient({ MCP_SESSION_IDLE_SECONDS: '1', MCP_MAX_TEXT_CHARS: '2000' });
    try {
      const first = browserIdOf(textOf(await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/long` } })));
      assert.equal((await ended(first))?.endReason, 'client-closed');
      const text = textOf(await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/long` } }));
      assert.match(text, new RegExp(`The previous browser ${first} was stopped after 1 s without a browser tool call`));
      assert.notEqual(browserIdOf(text), first);
      const snapshot = /```yaml\n([^]*)\n```/.exec(text)?.[1] ?? '';
      assert.match(snapshot, /link "Item 0"/);
      assert.doesNotMatch(snapshot, /Item 399/);
      assert.match(snapshot, /\[Snapshot cut: [\d,]+ more characters .* take browser_snapshot again to see the rest\.\]$/);
      assert.ok(snapshot.length < 2400, `the snapshot is cut near 2,000 characters, not ${snapshot.length}`);
    } finally {
      await client.close();
    }
  });

  it('refuses a stdio server without a key, naming the variable', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'server/cli/mcp.ts')],
      env: { PATH: process.env.PATH ?? '', PERISCOPE_URL: service.url },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'periscope-test', version: '1.0.0' });
    await assert.rejects(client.connect(transport));
    await eventually(
      () => stderr,
      (s) => s.includes('PERISCOPE_API_KEY'),
    );
    assert.match(stderr, /PERISCOPE_API_KEY: is required/);
  });

  it('serves every tool over Streamable HTTP at /mcp, and DELETE ends the session and its browser', async () => {
    const { client, transport } = await httpClient();
    const id = await exercise(client);
    assert.ok(transport.sessionId, 'the service gave a session id');
    const live = await periscope.browsers.list({ status: 'live' });
    assert.ok(live.some((b) => b.id === id));
    await transport.terminateSession();
    assert.equal((await ended(id))?.endReason, 'client-closed');
    await client.close();
    // The ended session is gone.
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': transport.sessionId ?? 'x',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
  });

  it('refuses /mcp without a valid key (401), and another key’s session (404)', async () => {
    const bad = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer psk_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'Content-Type': 'application/json',
      },
      body: '{}',
    });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('www-authenticate'), 'Bearer');
    const none = await fetch(`${service.url}/mcp`, { method: 'POST', body: '{}' });
    assert.equal(none.status, 401);
    await assert.rejects(httpClient('psk_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));

    const { client, transport } = await httpClient();
    try {
      const other = service.createKey({ name: 'other' }).token;
      const res = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${other}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': transport.sessionId as string,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 404, 'a session belongs to the key that opened it');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('ends an idle /mcp session (MCP_SESSION_IDLE_SECONDS) and its browser', async () => {
    const { client, transport } = await httpClient();
    const id = browserIdOf(textOf(await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/` } })));
    const sessionId = transport.sessionId as string;
    assert.equal((await ended(id))?.status, 'ended');
    await client.close();
    // Any request of the session would keep it: wait for the service to say it ended, then ask once.
    const logged = await eventually(
      () => service.logs.some((l) => l.msg === 'MCP session idle: ended' && l.mcpSession === sessionId),
      (v) => v,
      10_000,
    );
    assert.ok(logged, 'the service ended the idle session');
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 404, 'the idle session ended');
  });

  it('ends its MCP sessions, and their browsers, when the service shuts down', async () => {
    const { client } = await httpClient();
    const id = browserIdOf(textOf(await client.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/` } })));
    await service.stop();
    const ends = service.logs.filter((l) => l.msg === 'MCP session ended').length;
    const order = service.logs.map((l) => l.msg);
    assert.ok(ends >= 1, 'the session was ended');
    assert.ok(order.lastIndexOf('MCP session ended') < order.indexOf('shut down'), 'before the service was down');
    const end = service.logs.find((l) => l.msg === 'instance ended' && l.browserId === id);
    assert.equal(end?.reason, 'client-closed', 'the session stopped its browser before the service ended the rest');
    await client.close().catch(() => {});
  });
});
