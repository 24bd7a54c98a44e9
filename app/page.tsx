export default function Landing() {
  return (
    <main className="landing">
      <h1>Periscope</h1>
      <p className="lede">Real Chromium in the cloud and a web search API, on your own machines.</p>
      <ul className="features" aria-label="What Periscope does">
        <li>
          <h2>Cloud browsers</h2>
          <p>Open a WebSocket to <code>/start</code>, get a browser id, and drive a real Chromium with Playwright, puppeteer or raw CDP.</p>
        </li>
        <li>
          <h2>Web search</h2>
          <p><code>POST /v0/search</code> answers with ranked, de-duplicated results from your own index.</p>
        </li>
      </ul>
      <p className="muted">Sign-in opens here soon. Until then, use the API with a key from <code>npm run keys -- create --name NAME</code>.</p>
    </main>
  );
}
