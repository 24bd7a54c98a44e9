import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIGNATURE_WINDOW_MS, signNodeRequest, verifyNodeRequest } from './node-signature.ts';

const SECRET = 's'.repeat(32);
const NOW = 1_790_000_000_000;

describe('node-to-node signatures', () => {
  it('accepts what a node signed, and names the node', () => {
    const header = signNodeRequest(SECRET, 'node-1', 'GET', '/json/version', NOW);
    assert.deepEqual(verifyNodeRequest(SECRET, header, 'get', '/json/version', NOW + 1000), { ok: true, nodeId: 'node-1' });
  });

  it('refuses another secret, method, path, node or time', () => {
    const header = signNodeRequest(SECRET, 'node-1', 'GET', '/start', NOW);
    const refused = (h: string | string[] | undefined, method = 'GET', path = '/start', now = NOW, secret = SECRET) =>
      (verifyNodeRequest(secret, h, method, path, now) as { reason?: string }).reason;
    assert.equal(refused(header, 'GET', '/start', NOW, 't'.repeat(32)), 'bad node signature');
    assert.equal(refused(header, 'DELETE'), 'bad node signature');
    assert.equal(refused(header, 'GET', '/start?x=1'), 'bad node signature');
    assert.equal(refused(header.replace('node-1', 'node-2')), 'bad node signature');
    assert.equal(refused(header.replace(/t=\d+/, `t=${NOW + 1}`)), 'bad node signature');
    assert.equal(refused(header, 'GET', '/start', NOW + SIGNATURE_WINDOW_MS + 1), 'node signature expired');
    assert.equal(refused(header, 'GET', '/start', NOW - SIGNATURE_WINDOW_MS - 1), 'node signature expired');
    assert.equal(refused(undefined), 'not signed');
    assert.equal(refused([header, header]), 'more than one node signature');
    for (const bad of ['', 'node-1', 'node 1;t=1;sig=x', `${header}x`, header.replace(';sig=', ';sig=!')])
      assert.equal(refused(bad), 'malformed node signature', bad);
  });

  it('refuses to sign for a node id that could not be checked', () => {
    assert.throws(() => signNodeRequest(SECRET, 'a;b', 'GET', '/', NOW), RangeError);
  });
});
