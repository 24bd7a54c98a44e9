import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { closeStart, debuggerUrl, openStart } from '../helpers/browser.ts';
import { RawCdp } from '../helpers/cdp.ts';
import { eventually } from '../helpers/eventually.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Descaling the kettle</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="https://example.com/elsewhere#top">Elsewhere</a></nav>
<main><article><h1>Descaling the kettle</h1>
<p>Limescale builds up in every kettle that boils hard water. Once a month, fill the kettle halfway with water and
add two spoonfuls of <strong>citric acid</strong>; bring it to the boil and leave it to stand for fifteen minutes.</p>
<h2>Rinsing</h2>
<p>Pour the solution away and rinse the kettle twice with clean water, boiling it once more before use, so that no
taste of the acid stays behind. A kettle descaled this way heats faster and lasts longer.</p>
<ul><li>Citric acid</li><li>Clean water</li></ul>
<p>Read <a href="/guide/cleaning">the cleaning guide</a> for the outside of the kettle.</p>
</article></main>
<footer>Copyright Falcot Corp. Footer text that is not the article.</footer>
<script>document.title = 'Descaling the kettle'; document.body.insertAdjacentHTML('beforeend', '<p id="rendered">rendered by script</p>');</script>
</body></html>`;

const TALL = `<!doctype html><title>Tall</title><body style="margin:0"><div style="height:3000px;background:linear-gradient(red,blue)"></div></body>`;

/** A fixture site on loopback: an article, a redirect, a 404, a page that never finishes, cookies. */
async function fixtureSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    if (path === '/article') return html(200, ARTICLE);
    if (path === '/old') return html(301, '', { location: '/article' });
    if (path === '/tall') return html(200, TALL);
    if (path === '/book')
      return html(
        200,
        `<title>Book</title>${'<p>Limescale builds up in every kettle that boils hard water; citric acid removes it.</p>'.repeat(8_000)}`,
      );
    if (path === '/hostile')
      // A page that would make the answer as large as it can: a huge title, and links of 20 KB.
      return html(
        200,
        `<title>${'t'.repeat(100_000)}</title><a href="/short">short</a>` +
          Array.from({ length: 50 }, (_, i) => `<a href="/long/${i}/${'x'.repeat(20_000)}">long</a>`).join(''),
      );
    if (path === '/missing')
      return html(404, '<!doctype html><title>Not here</title><h1>No such page</h1><p>Nothing lives at this address.</p>');
    if (path === '/never') {
      // Headers, then never the end of the body: the page never reaches "load".
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><title>Slow</title><p>still loading');
      return;
    }
    if (path === '/set-cookie')
      return html(200, '<title>set</title><script>localStorage.setItem("who", "first key")</script>', {
        'set-cookie': 'session=secret-of-the-first-key; Path=/',
      });
    if (path === '/show-cookie')
      return html(
        200,
        `<title>show</title><p id="c">cookie=[${req.headers.cookie ?? ''}]</p><script>document.body.append('storage=[' + (localStorage.getItem('who') ?? '') + ']')</script>`,
      );
    html(404, '<title>404</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

type Answer = { status: number; headers: Headers; json: Record<string, unknown>; bytes: Buffer };

async function call(
  service: ServiceProcess,
  token: string | null,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: Record<string, unknown> = {};
  if (res.headers.get('content-type')?.includes('json')) json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, json, bytes };
}

const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

describe('page actions: POST /v0/fetch, /v0/screenshot, /v0/pdf', () => {
  let service: ServiceProcess;
  let site: Awaited<ReturnType<typeof fixtureSite>>;
  let token: string;

  before(async () => {
    site = await fixtureSite();
    service = await startService({
      BROWSER_EGRESS_ALLOW: '127.0.0.1/32',
      BROWSER_POOL_SIZE: '1',
      ACTIONS_RATE_WINDOW_SECONDS: '5',
      ACTIONS_MAX_PDF_MB: '1',
    });
    token = service.createKey({ name: 'actions' }).token;
  });
  after(async () => {
    site?.server.closeAllConnections();
    site?.server.close();
    await service?.stop();
  });

  it('fetches a page as Markdown of its main content, with absolute links, as the browser rendered it', async () => {
    const r = await call(service, token, '/v0/fetch', { url: `${site.url}/article` });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.url, `${site.url}/article`);
    assert.equal(r.json.finalUrl, `${site.url}/article`);
    assert.equal(r.json.status, 200);
    assert.equal(r.json.title, 'Descaling the kettle');
    const content = r.json.content as string;
    assert.match(content, /^# Descaling the kettle|## Rinsing/m, 'headings as Markdown');
    assert.match(content, /\*\*citric acid\*\*/, 'bold as Markdown');
    assert.match(content, /^-\s+Citric acid$/m, 'a list as Markdown');
    assert.match(content, new RegExp(`\\[the cleaning guide\\]\\(${site.url}/guide/cleaning\\)`), 'links in the content made absolute');
    assert.doesNotMatch(content, /Footer text|About us/, 'navigation and footer are not the main content');
    const links = r.json.links as string[];
    assert.ok(links.includes(`${site.url}/about`) && links.includes(`${site.url}/guide/cleaning`), links.join(' '));
    assert.ok(links.includes('https://example.com/elsewhere#top'));
    assert.equal(new Set(links).size, links.length, 'no repeats');
    assert.ok(r.headers.get('x-ratelimit-limit'), 'the limit headers');

    const text = await call(service, token, '/v0/fetch', { url: `${site.url}/article`, format: 'text' });
    assert.match(text.json.content as string, /two spoonfuls of citric acid/);
    assert.doesNotMatch(text.json.content as string, /\*\*/);
    const html = await call(service, token, '/v0/fetch', { url: `${site.url}/article`, format: 'html', waitUntil: 'networkidle' });
    assert.match(html.json.content as string, /<strong>citric acid<\/strong>/);
  });

  it('keeps a hostile page from swelling the answer: titles and links are cut to size', async () => {
    const r = await call(service, token, '/v0/fetch', { url: `${site.url}/hostile`, format: 'text' });
    assert.equal(r.status, 200);
    assert.equal((r.json.title as string).length, 1000, 'the title cut');
    assert.deepEqual(r.json.links, [`${site.url}/short`], 'links longer than 8 KB left out');
  });

  it('follows redirects, and answers a 404 page as the page it is', async () => {
    const moved = await call(service, token, '/v0/fetch', { url: `${site.url}/old`, waitUntil: 'domcontentloaded' });
    assert.equal(moved.status, 200);
    assert.equal(moved.json.url, `${site.url}/old`);
    assert.equal(moved.json.finalUrl, `${site.url}/article`);
    assert.equal(moved.json.status, 200);
    const missing = await call(service, token, '/v0/fetch', { url: `${site.url}/missing` });
    assert.equal(missing.status, 200);
    assert.equal(missing.json.status, 404);
    assert.match(missing.json.content as string, /No such page/);
  });

  it('takes screenshots of the viewport or the whole page, PNG or JPEG', async () => {
    const shot = await call(service, token, '/v0/screenshot', { url: `${site.url}/tall`, viewport: { width: 800, height: 600 } });
    assert.equal(shot.status, 200);
    assert.equal(shot.headers.get('content-type'), 'image/png');
    assert.equal(shot.bytes.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual(pngSize(shot.bytes), { width: 800, height: 600 });
    const full = await call(service, token, '/v0/screenshot', {
      url: `${site.url}/tall`,
      fullPage: true,
      viewport: { width: 800, height: 600 },
    });
    assert.deepEqual(pngSize(full.bytes), { width: 800, height: 3000 });
    const jpeg = await call(service, token, '/v0/screenshot', { url: `${site.url}/article`, format: 'jpeg', quality: 50 });
    assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual([...jpeg.bytes.subarray(0, 2)], [0xff, 0xd8]);
  });

  it('prints PDFs with paper options', async () => {
    const pdf = await call(service, token, '/v0/pdf', { url: `${site.url}/article`, format: 'A4', landscape: true, margin: { top: 1 } });
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(pdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    // A4 landscape: 842 × 595 points.
    assert.match(pdf.bytes.toString('latin1'), /\/MediaBox \[0 0 841\.\d+ 595\.\d+\]/);
    // A page that prints to more than ACTIONS_MAX_PDF_MB (1 here) is refused as it is read; its first pages are not.
    const book = await call(service, token, '/v0/pdf', { url: `${site.url}/book`, timeoutMs: 60_000 });
    assert.equal(book.status, 502, JSON.stringify(book.json));
    assert.match(book.json.error as string, /prints to more than 1 MB of PDF/);
    const chapter = await call(service, token, '/v0/pdf', { url: `${site.url}/book`, pageRanges: '1-3', timeoutMs: 60_000 });
    assert.equal(chapter.status, 200);
    assert.equal(chapter.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    const beyond = await call(service, token, '/v0/pdf', { url: `${site.url}/article`, pageRanges: '7-9' });
    assert.equal(beyond.status, 400);
    assert.equal((beyond.json.issues as { field: string }[])[0]?.field, 'pageRanges');
  });

  it('answers 502 with the reason when the page cannot be opened, and 504 after the timeout', async () => {
    const refused = await call(service, token, '/v0/fetch', { url: 'http://10.255.255.1/' });
    assert.equal(refused.status, 502);
    assert.equal(refused.json.code, 'bad_gateway');
    assert.match(refused.json.error as string, /refused by the egress policy.*10\.255\.255\.1 is in 10\.0\.0\.0\/8/);
    const tunnel = await call(service, token, '/v0/fetch', { url: 'https://127.0.0.2/' });
    assert.equal(tunnel.status, 502);
    assert.match(tunnel.json.error as string, /ERR_TUNNEL_CONNECTION_FAILED: refused by the egress policy: 127\.0\.0\.2/);
    const nowhere = await call(service, token, '/v0/fetch', { url: 'https://no-such-host.invalid/' });
    assert.equal(nowhere.status, 502);
    assert.match(nowhere.json.error as string, /did not resolve/);

    const slow = await call(service, token, '/v0/fetch', { url: `${site.url}/never`, timeoutMs: 1500 });
    assert.equal(slow.status, 504);
    assert.equal(slow.json.code, 'timeout');
    assert.match(slow.json.error as string, /did not reach "load" within 1500 ms/);
    const live = await eventually(
      async () =>
        (await (await fetch(`${service.url}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
          browsers: unknown[];
        },
      (l) => l.browsers.length === 0,
    );
    assert.deepEqual(live.browsers, [], 'every call’s browser ended with it');
  });

  it('validates every field, naming it', async () => {
    const cases: [unknown, string][] = [
      [{}, 'url'],
      [{ url: 'ftp://example.com/' }, 'url'],
      [{ url: 'example.com' }, 'url'],
      [{ url: 'http://user:pw@example.com/' }, 'url'],
      [{ url: 'https://example.com/', timeoutMs: 60_001 }, 'timeoutMs'],
      [{ url: 'https://example.com/', waitUntil: 'idle' }, 'waitUntil'],
      [{ url: 'https://example.com/', format: 'pdf' }, 'format'],
      [[1], 'body'],
      ['{not json', 'body'],
    ];
    for (const [body, field] of cases) {
      const r = await call(service, token, '/v0/fetch', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal((r.json.issues as { field: string }[])[0]?.field, field, JSON.stringify(body));
    }
    const shot = await call(service, token, '/v0/screenshot', {
      url: 'https://example.com/',
      quality: 50,
      viewport: { width: 10, height: 600 },
    });
    assert.deepEqual((shot.json.issues as { field: string }[]).map((i) => i.field).sort(), ['viewport.width']);
    const q = await call(service, token, '/v0/screenshot', { url: 'https://example.com/', quality: 50 });
    assert.equal((q.json.issues as { field: string }[])[0]?.field, 'quality');
    const type = await call(service, token, '/v0/fetch', { url: 'https://example.com/' }, { 'content-type': 'text/plain' });
    assert.equal((type.json.issues as { field: string }[])[0]?.field, 'content-type');
    assert.equal((await call(service, null, '/v0/fetch', { url: 'https://example.com/' })).status, 401);
    assert.equal((await call(service, 'psk_0000000000000000_nopenopenopenopenopenopenopenopenopenopenope', '/v0/pdf', {})).status, 401);
  });

  it('limits a key to its page actions a window and to its concurrent browsers', async () => {
    const limited = service.createKey({ name: 'two actions', actionsPerMinute: 2 }).token;
    assert.equal((await call(service, limited, '/v0/fetch', { url: `${site.url}/missing` })).status, 200);
    assert.equal((await call(service, limited, '/v0/fetch', { url: `${site.url}/missing` })).status, 200);
    const over = await call(service, limited, '/v0/fetch', { url: `${site.url}/missing` });
    assert.equal(over.status, 429);
    assert.equal(over.json.code, 'rate_limited');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.equal(over.headers.get('x-ratelimit-limit'), '2');

    // One browser at a time: a second call while the first holds the key's only browser is refused.
    const single = service.createKey({ name: 'one browser', maxInstances: 1 }).token;
    const first = call(service, single, '/v0/fetch', { url: `${site.url}/never`, timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 700));
    const second = await call(service, single, '/v0/fetch', { url: `${site.url}/article` });
    assert.equal(second.status, 429);
    assert.match(second.json.error as string, /concurrent browsers/);
    assert.equal((await first).status, 504);
  });

  it('never shares a browser between keys, nor between calls', async () => {
    const other = service.createKey({ name: 'other' }).token;
    const [set] = await Promise.all([
      call(service, token, '/v0/fetch', { url: `${site.url}/set-cookie` }),
      call(service, other, '/v0/fetch', { url: `${site.url}/article` }),
    ]);
    assert.equal(set.status, 200);
    // Proof that the probe sees a leak where there is one: in one browser, the second page shows both.
    const started = await openStart(service.wsUrl, token);
    try {
      const cdp = await RawCdp.connect(await debuggerUrl(service.url, started.headers), started.headers);
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `${site.url}/set-cookie` });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      await new Promise((r) => setTimeout(r, 500));
      await cdp.send('Page.navigate', { url: `${site.url}/show-cookie` }, sessionId);
      const seen = await eventually(
        async () =>
          (
            await cdp.send<{ result: { value: string } }>(
              'Runtime.evaluate',
              { expression: 'String(document.body?.innerText ?? "")', returnByValue: true },
              sessionId,
            )
          ).result.value,
        (t) => t?.includes('storage=[first key]') ?? false,
      );
      assert.match(seen, /cookie=\[session=secret-of-the-first-key\]/);
      assert.match(seen, /storage=\[first key\]/);
      await cdp.close();
    } finally {
      await closeStart(service.url, started);
    }
    for (const key of [other, token]) {
      const shown = await call(service, key, '/v0/fetch', { url: `${site.url}/show-cookie`, format: 'text' });
      assert.match(shown.json.content as string, /cookie=\[\]/, 'no cookie from another call');
      assert.match(shown.json.content as string, /storage=\[\]/, 'no local storage from another call');
    }
    const listed = (await (await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${other}` } })).json()) as {
      browsers: { id: string }[];
    };
    const mine = (await (await fetch(`${service.url}/v0/browsers`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      browsers: { id: string }[];
    };
    assert.equal(listed.browsers.length, 2, 'the other key’s two calls, each its own browser');
    assert.ok(!listed.browsers.some((b) => mine.browsers.some((m) => m.id === b.id)), 'no browser of one key is listed for the other');
  });
});
