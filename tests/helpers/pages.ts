import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TEST_PAGE = `<!doctype html>
<html><head><title>Periscope test page</title></head>
<body>
  <h1 id="heading">Hello from a local page</h1>
  <button id="button" onclick="document.getElementById('heading').textContent = 'Clicked ' + (++window.clicks)">Click me</button>
  <input id="field" aria-label="field">
  <script>window.clicks = 0;</script>
</body></html>`;

/** A page with controls at fixed positions, for driving through the live view by coordinates. */
export const LIVE_PAGE = `<!doctype html>
<html><head><title>Live test page</title>
<style>
  body { margin: 0; font: 16px sans-serif; height: 3000px; }
  #button { position: absolute; left: 100px; top: 100px; width: 200px; height: 50px; }
  #field { position: absolute; left: 100px; top: 200px; width: 300px; height: 30px; }
  #alert { position: absolute; left: 100px; top: 300px; width: 200px; height: 50px; }
  #popup { position: absolute; left: 100px; top: 400px; }
  #status { position: absolute; left: 400px; top: 100px; }
  #words { position: absolute; left: 100px; top: 500px; white-space: nowrap; font-size: 0; }
  #words span { display: inline-block; width: 120px; font-size: 20px; }
</style></head>
<body>
  <button id="button" onclick="show('clicked ' + (++window.clicks))">Click me</button>
  <input id="field" aria-label="field" oninput="show('field: ' + this.value)">
  <button id="alert" onclick="show('answer: ' + prompt('Your name?', 'nobody'))">Ask</button>
  <a id="popup" href="/?from=popup" target="_blank">open a tab</a>
  <div id="status">idle</div>
  <div id="words"><span>alpha</span> <span>bravo</span> <span>charlie</span> <span>delta</span></div>
  <script>
    window.clicks = 0;
    // Every change shows in the title too, so a viewer sees it in the tab strip.
    function show(text) { document.getElementById('status').textContent = text; document.title = text; }
    addEventListener('scroll', () => { document.title = 'scrolled ' + Math.round(scrollY); });
    // Words at 100 + 120 * i px from the left, 500 px from the top: a selection among them shows too.
    document.addEventListener('selectionchange', () => {
      const s = getSelection();
      if (s.rangeCount && document.getElementById('words').contains(s.anchorNode) && String(s).trim()) show('selected: ' + String(s).trim().replace(/\\s+/g, ' '));
    });
    addEventListener('touchstart', (e) => show('touched ' + e.touches.length + ' at ' + Math.round(e.touches[0].clientX) + ',' + Math.round(e.touches[0].clientY)));
  </script>
</body></html>`;

/**
 * A page that repaints every animation frame, so the screencast runs at full rate. A mouse press
 * toggles it between the animation and a still black screen, a change a viewer can tell from the
 * size of the next frame alone.
 */
export const ANIMATED_PAGE = `<!doctype html>
<html><head><title>Animated</title><style>body { margin: 0; overflow: hidden; } canvas { display: block; }</style></head>
<body><canvas id="c" width="1280" height="720"></canvas>
<script>
  const c = document.getElementById('c').getContext('2d');
  let n = 0;
  let still = false;
  function draw() {
    n++;
    if (still) {
      c.fillStyle = '#000';
      c.fillRect(0, 0, 1280, 720);
    } else {
      c.fillStyle = 'hsl(' + (n * 7 % 360) + ', 70%, 50%)';
      c.fillRect(0, 0, 1280, 720);
      c.fillStyle = '#fff';
      c.font = '96px sans-serif';
      for (let i = 0; i < 6; i++) c.fillText('frame ' + n + ' ' + i, (n * 5 + i * 90) % 900, 110 * i + 90);
    }
    requestAnimationFrame(draw);
  }
  draw();
  addEventListener('mousedown', () => { still = !still; });
</script></body></html>`;

/** A local HTTP server with the pages the browser tests visit. */
export async function startPageServer(): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/download') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.txt"' });
      res.end('downloaded content');
    } else if (req.url === '/animated') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(ANIMATED_PAGE);
    } else if (req.url === '/live') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(LIVE_PAGE);
    } else if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(TEST_PAGE);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
