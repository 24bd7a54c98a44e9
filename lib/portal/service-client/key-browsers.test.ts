import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { listKeyBrowsers } from './key-browsers.ts';

describe('listKeyBrowsers', () => {
  it('cuts a page’s long address and title instead of refusing the whole list', async () => {
    const long = `data:text/html,${'x'.repeat(20_000)}`;
    const browser = (id: string, url: string) => ({
      id: `br_${id.repeat(32)}`,
      status: 'ended',
      startedAt: '2026-11-26T12:00:00.000Z',
      endedAt: '2026-11-26T12:01:00.000Z',
      endReason: 'client-closed',
      // An untitled page's title is its address.
      page: { url, title: url },
      tabs: 0,
      recorded: true,
    });
    const server = createServer((_req, res) =>
      res.end(JSON.stringify({ browsers: [browser('a', long), browser('b', 'https://example.com/')] })),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const list = await listKeyBrowsers(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'psk_test');
      assert.equal(list?.length, 2);
      assert.equal(list[0]!.url.length, 8192);
      assert.equal(list[0]!.title.length, 2048);
      assert.ok(list[0]!.title.endsWith('…') && long.startsWith(list[0]!.title.slice(0, -1)));
      assert.deepEqual([list[1]!.url, list[1]!.title], ['https://example.com/', 'https://example.com/']);
    } finally {
      server.close();
    }
  });
});
