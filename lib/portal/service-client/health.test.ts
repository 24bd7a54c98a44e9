import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ServiceHealthReader } from './health.ts';

describe('ServiceHealthReader', () => {
  it('reads browsers and search pages, asks at most once per max age, and says null when unreachable', async () => {
    let hits = 0;
    let body: unknown = { status: 'ok', browsers: { live: 2, warm: 1, capacity: 10 }, search: { pages: 0 } };
    const server = createServer((_req, res) => {
      hits++;
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let clock = 0;
    const reader = new ServiceHealthReader(url, 1000, () => clock);
    try {
      const [a, b] = await Promise.all([reader.read(), reader.read()]);
      assert.deepEqual(a, { browsers: { live: 2, capacity: 10 }, searchPages: 0 });
      assert.equal(b, a);
      assert.equal(hits, 1, 'concurrent readers share one request');
      clock = 999;
      await reader.read();
      assert.equal(hits, 1, 'within the max age nothing is asked');
      clock = 1000;
      body = { status: 'ok', search: { pages: 7 } };
      assert.deepEqual(await reader.read(), { browsers: null, searchPages: 7 });
      assert.equal(hits, 2);
    } finally {
      server.close();
    }
    clock = 5000;
    assert.equal(await reader.read(), null, 'a service that cannot be reached');
  });
});
