import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceTestData, serviceTestStore } from '../../../tests/helpers/service-data.ts';
import { SINGLE_NODE } from './history.ts';

const HOUR = 3_600_000;
const page = (url: string) => ({ tabs: 1, page: { url, title: url } });

function history(maxEndedPerKey = 3) {
  const h = serviceTestData().history({ retentionMs: 24 * HOUR, recordingRetentionMs: 7 * 24 * HOUR, maxEndedPerKey });
  // The existing cases are about one node; the node cases name theirs.
  const start = (id: string, keyId: string, at: number, nodeId = SINGLE_NODE) => h.started({ id, keyId, nodeId, at });
  return Object.assign(h, { start });
}

describe(`BrowserHistory (${serviceTestStore})`, () => {
  it("lists a key's browsers newest first, live and ended, with how each ended and its last page", async () => {
    const h = history();
    await h.start('br_a', 'k1', 1_000);
    await h.start('br_b', 'k1', 2_000);
    await h.start('br_c', 'k2', 3_000);
    await h.ended('br_a', 'client-closed', 5_000, page('https://a.test/'));
    const listed = await h.list('k1', 6_000);
    assert.deepEqual(
      listed.map((r) => [r.id, r.endedAt, r.endReason]),
      [
        ['br_b', null, null],
        ['br_a', 5_000, 'client-closed'],
      ],
    );
    assert.deepEqual(listed[1]?.state, page('https://a.test/'));
    assert.deepEqual(listed[0]?.state, { tabs: 0, page: null });
    assert.deepEqual(await h.get('br_a', 'k1'), listed[1]);
    assert.equal(await h.get('br_a', 'k2'), undefined, "another key's browser is not found");
  });

  it('records an end once: a second end of the same browser changes nothing', async () => {
    const h = history();
    await h.start('br_a', 'k1', 1_000);
    await h.ended('br_a', 'stopped', 2_000, page('https://first.test/'));
    await h.ended('br_a', 'shutdown', 3_000, page('https://second.test/'));
    assert.equal((await h.list('k1', 4_000))[0]?.endReason, 'stopped');
  });

  it('applies the writes about one browser in the order they were called, even unawaited', async () => {
    const h = history();
    const writes = [
      h.start('br_a', 'k1', 1_000),
      h.observed('br_a', page('https://seen.test/')),
      h.ended('br_a', 'client-closed', 2_000, page('https://last.test/')),
      h.observed('br_a', page('https://too-late.test/')),
    ];
    await Promise.all(writes);
    const [a] = await h.list('k1', 3_000);
    assert.deepEqual([a?.endReason, a?.state], ['client-closed', page('https://last.test/')]);
  });

  it("keeps what a live browser shows for other nodes to list, and a page's NUL as a replacement character", async () => {
    const h = history();
    await h.start('br_a', 'k1', 1_000, 'node-2');
    await h.observed('br_a', { tabs: 2, page: { url: 'https://a.test/', title: 'a\u0000b' } });
    const [a] = await h.list('k1', 2_000);
    assert.deepEqual([a?.nodeId, a?.endedAt, a?.state.tabs, a?.state.page?.url], ['node-2', null, 2, 'https://a.test/']);
    assert.match(a?.state.page?.title ?? '', /^a.b$/);
  });

  it("ends what a killed predecessor of this node left, as service-restarted, and no other node's", async () => {
    const h = history();
    await h.start('br_a', 'k1', 1_000);
    await h.start('br_b', 'k1', 1_500);
    await h.start('br_other', 'k1', 1_700, 'node-2');
    await h.ended('br_b', 'client-closed', 1_600, page('https://b.test/'));
    assert.equal(await h.endLeftovers(SINGLE_NODE, 2_000), 1);
    assert.deepEqual(
      (await h.list('k1', 3_000)).map((r) => [r.id, r.endReason]),
      [
        ['br_other', null],
        ['br_b', 'client-closed'],
        ['br_a', 'service-restarted'],
      ],
    );
  });

  it('ends every live browser of a dead node with the reason given, and returns their ids', async () => {
    const h = history();
    await h.start('br_1', 'k1', 1_000, 'node-1');
    await h.start('br_2', 'k2', 1_100, 'node-1');
    await h.start('br_3', 'k1', 1_200, 'node-1');
    await h.start('br_4', 'k1', 1_300, 'node-2');
    await h.ended('br_3', 'client-closed', 1_500, page('https://3.test/'));
    await h.observed('br_1', page('https://1.test/'));
    assert.deepEqual(await h.endNode('node-1', 'node-lost', 2_000), ['br_1', 'br_2']);
    assert.deepEqual(await h.endNode('node-1', 'node-lost', 2_500), [], 'nothing left to end');
    assert.deepEqual(
      (await h.list('k1', 3_000)).map((r) => [r.id, r.nodeId, r.endedAt, r.endReason, r.state.page?.url ?? null]),
      [
        ['br_4', 'node-2', null, null, null],
        ['br_3', 'node-1', 1_500, 'client-closed', 'https://3.test/'],
        ['br_1', 'node-1', 2_000, 'node-lost', 'https://1.test/'],
      ],
    );
    await h.ended('br_1', 'client-closed', 2_600, page('https://late.test/'));
    assert.equal((await h.get('br_1', 'k1'))?.endReason, 'node-lost', 'the first end recorded stays');
  });

  it('keeps ended browsers for the retention and the newest few per key, and every live one', async () => {
    const h = history(2);
    for (let i = 0; i < 5; i++) {
      await h.start(`br_${i}`, 'k1', i * 1_000);
      await h.ended(`br_${i}`, 'client-closed', i * 1_000 + 500, page(`https://${i}.test/`));
    }
    await h.start('br_live', 'k1', 100);
    assert.deepEqual(
      (await h.list('k1', 10_000)).map((r) => r.id),
      ['br_4', 'br_3', 'br_live'],
      'listed: the newest two ended and the live one',
    );
    assert.equal(await h.prune(10_000), 3);
    assert.equal(await h.prune(10_000), 0);
    assert.deepEqual(
      (await h.list('k1', 4_500 + 24 * HOUR + 1)).map((r) => r.id),
      ['br_live'],
      'past the retention only the live one stays',
    );
    assert.equal(await h.prune(4_500 + 24 * HOUR + 1), 2);
  });

  it('keeps a recorded browser listed as long as its recording, with its size, until the recording is forgotten', async () => {
    const h = history(1);
    await h.started({ id: 'br_rec', keyId: 'k1', nodeId: SINGLE_NODE, at: 1_000, recorded: true });
    await h.ended('br_rec', 'client-closed', 2_000, page('https://r.test/'));
    await h.recordingSize('br_rec', 12_345);
    const later = 2_000 + 48 * HOUR;
    assert.deepEqual(
      (await h.list('k1', later)).map((r) => [r.id, r.recordingBytes]),
      [['br_rec', 12_345]],
    );
    assert.deepEqual(await h.expiredRecordings(later), []);
    assert.deepEqual(await h.expiredRecordings(2_001 + 7 * 24 * HOUR), ['br_rec']);
    await h.forgetRecording('br_rec');
    assert.equal((await h.get('br_rec', 'k1'))?.recordingBytes, null);
    assert.equal(await h.prune(later), 1);
  });
});
