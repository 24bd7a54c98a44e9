import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startService } from '../helpers/service.ts';

/** /metrics is open by default (loopback installs), and closed to anyone without the token once METRICS_TOKEN is set. */
describe('/metrics behind METRICS_TOKEN', () => {
  it('is readable without a token when none is configured', async () => {
    const service = await startService({ BROWSER_POOL_SIZE: '0' });
    try {
      assert.equal((await fetch(`${service.url}/metrics`)).status, 200);
    } finally {
      await service.stop();
    }
  });

  it('answers 401 without the token or with a wrong one, and the figures with it', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const service = await startService({ BROWSER_POOL_SIZE: '0', METRICS_TOKEN: token });
    try {
      for (const authorization of [undefined, 'Bearer', `Bearer ${token}x`, `Bearer ${token.slice(1)}`, token, `Basic ${token}`]) {
        const res = await fetch(`${service.url}/metrics`, { headers: authorization ? { authorization } : {} });
        assert.equal(res.status, 401, String(authorization));
        assert.match(((await res.json()) as { error: string }).error, /METRICS_TOKEN/);
      }
      const ok = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /periscope_browser_instances_live/);
      assert.equal((await fetch(`${service.url}/healthz`)).status, 200, '/healthz stays open for load balancers');
    } finally {
      await service.stop();
    }
  });

  it('refuses a token too short to be a secret at start', async () => {
    await assert.rejects(startService({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
  });
});
