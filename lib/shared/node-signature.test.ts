import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkNodeSignature, NODE_CLOCK_WINDOW_MS, NODE_HEADERS, signNodeRequest } from './node-signature.ts';

const secret = 's'.repeat(40);
const req = { method: 'POST', path: '/_node/browsers/inst_0123456789abcdef/stop', body: '{"reason":"stopped"}' };

describe('node-to-node signatures', () => {
  it('accepts what a node with the secret signed, and says who', () => {
    const now = 1_800_000_000_000;
    const check = checkNodeSignature('portal', secret, signNodeRequest('portal', secret, 'portal-1', req, now), req, now + 1000);
    assert.ok(check.ok);
    assert.equal(check.nodeId, 'portal-1');
  });

  it('refuses no signature, another secret, another path, body, method or node, and a time outside the window', () => {
    const now = 1_800_000_000_000;
    const good = signNodeRequest('portal', secret, 'portal-1', req, now);
    const cases: [string, Record<string, string | undefined>, typeof req, number][] = [
      ['unsigned', {}, req, now],
      ['other secret', signNodeRequest('portal', 'o'.repeat(40), 'portal-1', req, now), req, now],
      ['other path', good, { ...req, path: '/_node/browsers/inst_0123456789abcdeX/stop' }, now],
      ['other body', good, { ...req, body: '{"reason":"idle"}' }, now],
      ['other method', good, { ...req, method: 'GET' }, now],
      ['other node', { ...good, [NODE_HEADERS.node]: 'portal-2' }, req, now],
      ['too late', good, req, now + NODE_CLOCK_WINDOW_MS + 1],
      ['too early', good, req, now - NODE_CLOCK_WINDOW_MS - 1],
      ['malformed time', { ...good, [NODE_HEADERS.time]: 'soon' }, req, now],
      ['malformed node', { ...good, [NODE_HEADERS.node]: 'a b' }, req, now],
      ['truncated signature', { ...good, [NODE_HEADERS.signature]: good[NODE_HEADERS.signature]!.slice(1) }, req, now],
    ];
    for (const [label, headers, r, at] of cases) {
      const check = checkNodeSignature('portal', secret, headers, r, at);
      assert.equal(check.ok, false, label);
    }
  });

  it("refuses a portal node's signature where a service node's is wanted, and the other way round", () => {
    const now = 1_800_000_000_000;
    assert.equal(checkNodeSignature('service', secret, signNodeRequest('portal', secret, 'n1', req, now), req, now).ok, false);
    assert.equal(checkNodeSignature('portal', secret, signNodeRequest('service', secret, 'n1', req, now), req, now).ok, false);
    assert.equal(checkNodeSignature('service', secret, signNodeRequest('service', secret, 'n1', req, now), req, now).ok, true);
  });
});
