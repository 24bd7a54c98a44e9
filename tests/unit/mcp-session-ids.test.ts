import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeOfSession, sessionIdOn } from '../../server/service/routes/mcp.ts';

describe('/mcp session ids', () => {
  it('name their node when there are several, and nothing on one node', () => {
    const single = sessionIdOn(null);
    assert.match(single, /^[0-9a-f-]{36}$/);
    assert.equal(nodeOfSession(single), null);
    const clustered = sessionIdOn('node-2');
    assert.match(clustered, /^[!-~]+$/, 'visible ASCII, as MCP asks of session ids');
    assert.equal(nodeOfSession(clustered), 'node-2');
    assert.equal(nodeOfSession('bm9kZS0y.not-a-uuid'), null);
  });
});
