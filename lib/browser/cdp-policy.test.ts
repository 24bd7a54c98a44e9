import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge, refusal } from './cdp-policy.ts';

const j = (msg: Record<string, unknown>) => judge(JSON.stringify(msg), '/profiles/p1/Downloads');

describe('CDP policy', () => {
  it('lets ordinary commands pass without parsing them', () => {
    assert.deepEqual(j({ id: 1, method: 'Runtime.evaluate', params: { expression: 'location = "file:///etc"' } }), { action: 'pass' });
    assert.deepEqual(j({ id: 2, method: 'Page.navigate', params: { url: 'https://example.com' } }), { action: 'pass' });
    assert.deepEqual(j({ id: 3, method: 'Target.createTarget', params: { url: 'about:blank' } }), { action: 'pass' });
    assert.deepEqual(judge('{not json "Page.navigate"', '/d'), { action: 'pass' });
  });

  it('refuses what reaches the host', () => {
    for (const msg of [
      { id: 1, method: 'Page.navigate', params: { url: ' file:///etc/passwd' } },
      { id: 1, method: 'Target.createTarget', params: { url: 'chrome://settings' } },
      { id: 1, method: 'Network.loadNetworkResource', params: { url: 'filesystem:http://x/temporary/a' } },
      { id: 1, method: 'DOM.setFileInputFiles', params: { files: [] } },
      { id: 1, method: 'Extensions.loadUnpacked', params: { path: '/' } },
      { id: 1, method: 'Target.setRemoteLocations', params: { locations: [] } },
      { id: 1, method: 'Input.dispatchDragEvent', params: { data: { files: ['/etc/shadow'] } } },
    ]) {
      assert.equal(j(msg).action, 'refuse', JSON.stringify(msg));
    }
    assert.equal(j({ id: 1, method: 'Input.dispatchDragEvent', params: { data: { items: [] } } }).action, 'pass');
  });

  it('moves downloads into the instance\'s profile', () => {
    const v = j({ id: 4, method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName', downloadPath: '/etc/cron.d' }, sessionId: 's' });
    assert.deepEqual(v, { action: 'rewrite', message: { id: 4, method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName', downloadPath: '/profiles/p1/Downloads' }, sessionId: 's' } });
    assert.deepEqual(j({ id: 5, method: 'Browser.setDownloadBehavior', params: { behavior: 'deny' } }), { action: 'pass' });
  });

  it('answers a refused command like Chromium answers an error, to the same id and session', () => {
    assert.deepEqual(JSON.parse(refusal('{"id":7,"method":"X","sessionId":"S"}', 'no')!), { id: 7, sessionId: 'S', error: { code: -32000, message: 'Periscope: no' } });
    assert.equal(refusal('{"method":"X"}', 'no'), null);
  });
});
