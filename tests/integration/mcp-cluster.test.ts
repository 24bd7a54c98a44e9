import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServiceCluster, type ServiceCluster } from '../helpers/cluster.ts';
import { startPageServer } from '../helpers/pages.ts';

/**
 * /mcp behind a balancer that spreads requests over nodes (deploy/haproxy.cfg balances by load): a
 * session lives on the node that opened it, and any other node passes its requests on to that one.
 */
const cluster = await startServiceCluster(2, () => ({ BROWSER_POOL_SIZE: '0', BROWSER_EGRESS_ALLOW: '127.0.0.1/32' }));
const skip = typeof cluster === 'string' ? cluster : false;

describe('/mcp on several service nodes', { skip }, () => {
  const c = cluster as ServiceCluster;
  let pages: Awaited<ReturnType<typeof startPageServer>>;

  before(async () => {
    pages = await startPageServer();
  });
  after(async () => {
    await pages?.close();
    await c.stop();
  });

  /** One JSON-RPC call of the session through `base`, its answer read from JSON or from the SSE stream. */
  const call = async (base: string, token: string, sessionId: string, method: string, params: unknown) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    const text = await res.text();
    const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
    return { status: res.status, body: JSON.parse(data) as { result?: { content?: { type: string; text?: string }[] } } };
  };

  it('serves a session opened on node 1 through node 2', async () => {
    const [one, two] = [c.nodes[0]!, c.nodes[1]!];
    const { token } = one.createKey({ name: 'mcp-nodes' });
    const client = new Client({ name: 'periscope-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${one.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      const sessionId = transport.sessionId as string;
      assert.match(sessionId, /^[A-Za-z0-9_-]+\.[0-9a-f-]{36}$/, 'the id names its node');
      const listed = await call(two.url, token, sessionId, 'tools/list', {});
      assert.equal(listed.status, 200);
      assert.ok(JSON.stringify(listed.body).includes('browser_snapshot'));
      const navigated = await call(two.url, token, sessionId, 'tools/call', { name: 'browser_navigate', arguments: { url: pages.url } });
      assert.equal(navigated.status, 200);
      const text = navigated.body.result?.content?.[0]?.text ?? '';
      assert.match(text, /- Page Title: Periscope test page/);
      const id = /Started Periscope browser (br_[A-Za-z0-9_-]{32})/.exec(text)?.[1];
      const res = await fetch(`${two.url}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } });
      const { browsers } = (await res.json()) as { browsers: { id: string; page: { url: string } | null }[] };
      assert.equal(browsers.find((b) => b.id === id)?.page?.url, pages.url, 'the session’s browser is the key’s, on any node');
      // Node 1 itself goes on with the same session.
      const snap = await client.callTool({ name: 'browser_snapshot', arguments: {} });
      assert.match(JSON.stringify(snap), /Click me/);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });
});
