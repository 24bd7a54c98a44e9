import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPortalConfig } from './config.ts';
import { ConfigError } from '#shared/config-schema.ts';

describe('portal configuration', () => {
  it('has working defaults: the service beside it, no OAuth, secrets left to DATA_DIR', () => {
    const c = loadPortalConfig({});
    assert.equal(c.serviceUrl, 'http://127.0.0.1:3100');
    assert.equal(c.operatorToken, undefined);
    assert.deepEqual(c.oauth, []);
    assert.equal(c.keyEncryptionSecret, undefined);
    assert.equal(c.publicUrl, 'http://127.0.0.1:3000');
  });

  it('keeps the data in DATA_DIR unless DATABASE_URL names a PostgreSQL database', () => {
    assert.deepEqual(loadPortalConfig({}).database, { kind: 'sqlite' });
    assert.deepEqual(loadPortalConfig({ DATABASE_URL: ' ' }).database, { kind: 'sqlite' });
    for (const url of [
      'postgres://periscope:s3cret@db.example.test:5432/periscope',
      'postgresql://db.example.test/portal?sslmode=require',
    ]) {
      assert.deepEqual(loadPortalConfig({ DATABASE_URL: url }).database, { kind: 'postgres', url });
    }
  });

  it('refuses a DATABASE_URL that is not a PostgreSQL database, without echoing its password', () => {
    for (const [url, why] of [
      ['mysql://u:hunter2hunter2@db/periscope', /postgres:\/\/ or postgresql:\/\//],
      ['postgres://u:hunter2hunter2@db.example.test:5432/', /name one database/],
      ['postgres://u:hunter2hunter2@db.example.test/a/b', /name one database/],
      ['db.example.test/periscope', /must be a URL/],
    ] as const) {
      assert.throws(
        () => loadPortalConfig({ DATABASE_URL: url }),
        (err: ConfigError) =>
          err.problems.length === 1 &&
          err.problems[0]!.startsWith('DATABASE_URL: ') &&
          why.test(err.message) &&
          !err.message.includes('hunter2'),
        url,
      );
    }
  });

  it('switches OAuth providers on by configuration alone', () => {
    const c = loadPortalConfig({
      GITHUB_CLIENT_ID: 'gh',
      GITHUB_CLIENT_SECRET: 'ghs',
      OIDC_ISSUER: 'https://id.example.test/',
      OIDC_CLIENT_ID: 'c',
      OIDC_CLIENT_SECRET: 's',
      OIDC_NAME: 'Acme SSO',
    });
    assert.deepEqual(
      c.oauth.map((p) => p.kind),
      ['github', 'oidc'],
    );
    assert.deepEqual(c.oauth[1], { kind: 'oidc', issuer: 'https://id.example.test', clientId: 'c', clientSecret: 's', name: 'Acme SSO' });
  });

  it('names every half-configured provider and weak secret', () => {
    assert.throws(
      () => loadPortalConfig({ GOOGLE_CLIENT_ID: 'g', OIDC_ISSUER: 'https://id.example.test' }),
      (e: ConfigError) =>
        e.problems.some((p) => p.startsWith('GOOGLE_CLIENT_SECRET')) && e.problems.some((p) => p.startsWith('OIDC_ISSUER')),
    );
    assert.throws(() => loadPortalConfig({ KEY_ENCRYPTION_SECRET: 'short' }), /KEY_ENCRYPTION_SECRET: must be at least 32/);
  });

  it('issues keys through the service, beside it or remote, only with the operator token', () => {
    const token = 'o'.repeat(32);
    const c = loadPortalConfig({ SERVICE_URL: 'https://api.example.test', SERVICE_OPERATOR_TOKEN: token });
    assert.deepEqual([c.serviceUrl, c.operatorToken], ['https://api.example.test', token]);
    assert.throws(() => loadPortalConfig({ SERVICE_OPERATOR_TOKEN: 'short' }), /SERVICE_OPERATOR_TOKEN: must be at least 32/);
  });

  it('runs as one process unless REDIS_URL names a Redis, and then needs a cluster secret', () => {
    assert.equal(loadPortalConfig({}).cluster, null);
    assert.throws(
      () => loadPortalConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }),
      (err) => err instanceof ConfigError && err.problems[0]!.startsWith('CLUSTER_SECRET: must be set'),
    );
    const secret = 'x'.repeat(32);
    const c = loadPortalConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      CLUSTER_SECRET: secret,
      PORTAL_NODE_ID: 'portal-1',
      PORTAL_NODE_URL: 'http://10.0.0.7:3000/',
    });
    assert.deepEqual(c.cluster, { redisUrl: 'redis://127.0.0.1:6379', nodeId: 'portal-1', nodeUrl: 'http://10.0.0.7:3000', secret });
    // Without PORTAL_NODE_URL, the listening address; none can be derived from a wildcard address.
    assert.equal(
      loadPortalConfig({ REDIS_URL: 'redis://r', CLUSTER_SECRET: secret, PORT: '3005' }).cluster?.nodeUrl,
      'http://127.0.0.1:3005',
    );
    assert.throws(
      () => loadPortalConfig({ REDIS_URL: 'redis://r', CLUSTER_SECRET: secret, HOST: '0.0.0.0' }),
      (err) => err instanceof ConfigError && err.problems[0]!.startsWith('PORTAL_NODE_URL: must be set'),
    );
    for (const [name, value] of [
      ['REDIS_URL', 'http://cache:6379'],
      ['PORTAL_NODE_ID', 'a b'],
      ['PORTAL_NODE_URL', 'ftp://x'],
      ['CLUSTER_SECRET', 'short'],
    ] as const) {
      assert.throws(
        () => loadPortalConfig({ REDIS_URL: 'redis://r', CLUSTER_SECRET: secret, [name]: value }),
        (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith(`${name}: `)),
        `${name}=${value}`,
      );
    }
  });
});
