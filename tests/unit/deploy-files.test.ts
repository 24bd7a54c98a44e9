import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadPortalConfig } from '#portal/config.ts';
import { loadServiceConfig } from '#service/config.ts';
import { ROOT } from '../helpers/service.ts';

/** deploy/ is a layout people copy: its files must say what the code accepts. */
function envFile(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, 'deploy', name), 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

describe('deploy/', () => {
  it("service.env is a service node's valid configuration: one node of a cluster on PostgreSQL and Redis", () => {
    const c = loadServiceConfig(envFile('service.env'));
    assert.equal(c.database.kind, 'postgres');
    assert.equal(c.cluster?.nodeId, 'service-1');
    assert.equal(c.cluster?.nodeUrl, 'http://10.0.0.11:3100');
    assert.equal(c.http.perAddress, 0);
    assert.equal(c.profiles.dir, '/mnt/periscope-profiles');
    assert.notEqual(c.profiles.secret, c.cluster?.secret, 'profiles are sealed with a secret of their own');
  });

  it("portal.env is a portal node's valid configuration, pointing at the balancer", () => {
    const c = loadPortalConfig(envFile('portal.env'));
    assert.equal(c.database.kind, 'postgres');
    assert.equal(c.serviceUrl, 'https://browsers.example.com');
    assert.equal(c.publicUrl, 'https://periscope.example.com');
    assert.equal(c.trustProxy, true);
  });

  it('haproxy.cfg is valid for HAProxy, with every address from the environment', (t) => {
    if (spawnSync('sh', ['-c', 'command -v haproxy']).status !== 0) {
      if (/^(1|true|yes)$/i.test(process.env.CI ?? '')) assert.fail('haproxy is not installed (.ci/run installs it)');
      return t.skip('haproxy is not installed');
    }
    const env = { ...process.env, SERVICE_BIND: '127.0.0.1:1', PORTAL_BIND: '127.0.0.1:2' };
    for (const [i, name] of ['SERVICE_NODE_1', 'SERVICE_NODE_2', 'SERVICE_NODE_3', 'PORTAL_NODE_1', 'PORTAL_NODE_2'].entries())
      Object.assign(env, { [name]: `127.0.0.1:${10 + i}` });
    const ok = spawnSync('haproxy', ['-c', '-f', join(ROOT, 'deploy/haproxy.cfg')], { env, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr + ok.stdout);
    const missing = spawnSync('haproxy', ['-c', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: { NODE_ENV: 'test', PATH: process.env.PATH },
      encoding: 'utf8',
    });
    assert.notEqual(missing.status, 0, 'without the addresses it is refused');
  });
});
