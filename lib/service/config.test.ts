import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '#shared/config-schema.ts';
import { advertisedUrls, defaultListCacheMb, loadServiceConfig } from './config.ts';

describe('loadServiceConfig', () => {
  it('has working defaults', () => {
    const c = loadServiceConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 3100);
    assert.equal(c.search.defaultRatePerMinute, 40);
    assert.equal(c.browser.poolSize, 2);
    assert.deepEqual(advertisedUrls(c, { address: '127.0.0.1', port: 3100 }), { http: 'http://127.0.0.1:3100', ws: 'ws://127.0.0.1:3100' });
    assert.deepEqual(advertisedUrls(c, { address: '::1', port: 4 }), { http: 'http://[::1]:4', ws: 'ws://[::1]:4' });
  });

  it('advertises wss:// when the public base is https, and honours an explicit ws base', () => {
    const https = loadServiceConfig({ PUBLIC_BROWSER_URL: 'https://browsers.example.com/' });
    assert.deepEqual(advertisedUrls(https, { address: '0.0.0.0', port: 3100 }), {
      http: 'https://browsers.example.com',
      ws: 'wss://browsers.example.com',
    });
    const both = loadServiceConfig({ PUBLIC_BROWSER_URL: 'https://a.example', PUBLIC_BROWSER_WS_URL: 'wss://b.example/base' });
    assert.deepEqual(advertisedUrls(both, { address: '0.0.0.0', port: 1 }), { http: 'https://a.example', ws: 'wss://b.example/base' });
    const wsOnly = loadServiceConfig({ PUBLIC_BROWSER_WS_URL: 'wss://b.example' });
    assert.equal(advertisedUrls(wsOnly, { address: '0.0.0.0', port: 1 }).http, 'https://b.example');
  });

  it('names every invalid variable at once', () => {
    assert.throws(
      () =>
        loadServiceConfig({
          SERVICE_PORT: '70000',
          BROWSER_POOL_SIZE: 'two',
          PUBLIC_BROWSER_URL: 'ftp://x',
          PUBLIC_BROWSER_WS_URL: 'wss://x/?q=1',
          LOG_LEVEL: 'loud',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        for (const name of ['SERVICE_PORT', 'BROWSER_POOL_SIZE', 'PUBLIC_BROWSER_URL', 'PUBLIC_BROWSER_WS_URL', 'LOG_LEVEL']) {
          assert.ok(
            err.problems.some((p) => p.startsWith(name)),
            name,
          );
        }
        return true;
      },
    );
    assert.throws(() => loadServiceConfig({ BROWSER_EGRESS_ALLOW: '127.0.0.1, nope' }), /BROWSER_EGRESS_ALLOW: "nope"/);
  });

  it('runs as one node unless REDIS_URL names a Redis, and then needs a cluster secret', () => {
    const single = loadServiceConfig({});
    assert.equal(single.cluster, null);
    assert.deepEqual(single.database, { kind: 'sqlite' });
    assert.throws(
      () => loadServiceConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }),
      (err) => err instanceof ConfigError && err.problems[0]!.startsWith('CLUSTER_SECRET: must be set'),
    );
    const secret = 'x'.repeat(32);
    const c = loadServiceConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      CLUSTER_SECRET: secret,
      NODE_ID: 'node-1',
      NODE_URL: 'http://10.0.0.5:3100/',
    });
    assert.deepEqual(c.cluster, { redisUrl: 'redis://127.0.0.1:6379', nodeId: 'node-1', nodeUrl: 'http://10.0.0.5:3100', secret });
    assert.deepEqual(loadServiceConfig({ DATABASE_URL: 'postgres://u@db/periscope' }).database, {
      kind: 'postgres',
      url: 'postgres://u@db/periscope',
    });
    for (const [name, value] of [
      ['REDIS_URL', 'http://cache:6379'],
      ['REDIS_URL', 'redis://cache:6379/x'],
      ['DATABASE_URL', 'mysql://db/x'],
      ['NODE_ID', 'a b'],
      ['CLUSTER_SECRET', 'short'],
    ] as const) {
      assert.throws(
        () => loadServiceConfig({ [name]: value, ...(name === 'REDIS_URL' ? { CLUSTER_SECRET: secret } : {}) }),
        (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith(`${name}: `)),
        `${name}=${value}`,
      );
    }
  });

  it('reads one index file unless SEARCH_INDEX_DIR names a folder of generations, never both', () => {
    const single = loadServiceConfig({ DATA_DIR: '/srv/p' });
    assert.equal(single.search.indexPath, '/srv/p/index.db');
    assert.equal(single.search.generations, null);
    const shared = loadServiceConfig({ DATA_DIR: '/srv/p', SEARCH_INDEX_DIR: 'index', SEARCH_INDEX_CHECK_SECONDS: '5' });
    assert.deepEqual(shared.search.generations, { dir: '/srv/p/index', checkMs: 5000 });
    assert.deepEqual(loadServiceConfig({ SEARCH_INDEX_DIR: '/mnt/index' }).search.generations, { dir: '/mnt/index', checkMs: 10_000 });
    assert.throws(
      () => loadServiceConfig({ SEARCH_INDEX_DIR: '/mnt/index', SEARCH_INDEX_PATH: '/srv/index.db' }),
      (err) => err instanceof ConfigError && err.problems[0]!.startsWith('SEARCH_INDEX_DIR: set either it'),
    );
    assert.throws(
      () => loadServiceConfig({ SEARCH_INDEX_DIR: '/mnt/index', SEARCH_INDEX_CHECK_SECONDS: '0' }),
      (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith('SEARCH_INDEX_CHECK_SECONDS: ')),
    );
  });

  it('keeps SEARCH_LIST_CACHE_MB of lists in each query thread, unless told a tenth of the memory shared by the threads, 384 MB to 3 GB', () => {
    const GB = 1024 ** 3;
    assert.equal(defaultListCacheMb(1, 24 * GB), 2457);
    assert.equal(defaultListCacheMb(3, 24 * GB), 819);
    assert.equal(defaultListCacheMb(0, 24 * GB), 2457, 'queries on the event loop: one thread');
    assert.equal(defaultListCacheMb(1, 2 * GB), 384);
    assert.equal(defaultListCacheMb(1, 256 * GB), 3072);
    assert.equal(
      loadServiceConfig({ SEARCH_WORKERS: '2' }).search.listCacheBytes,
      defaultListCacheMb(2) * 1024 * 1024,
      'the threads the service runs share the default',
    );
    assert.equal(loadServiceConfig({ SEARCH_LIST_CACHE_MB: '1024' }).search.listCacheBytes, 1024 * 1024 * 1024);
    for (const bad of ['0', '-5', '1.5', 'lots', '65537'])
      assert.throws(
        () => loadServiceConfig({ SEARCH_LIST_CACHE_MB: bad }),
        (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith('SEARCH_LIST_CACHE_MB: ')),
        bad,
      );
  });

  it('keeps saved profiles in DATA_DIR/profiles unless BROWSER_PROFILES_DIR says where, up to BROWSER_PROFILE_MAX_MB each, BROWSER_PROFILE_CONCURRENCY restored or saved at once, BROWSER_PROFILE_WARM started ahead', () => {
    const plain = loadServiceConfig({ DATA_DIR: '/srv/p' });
    assert.deepEqual(plain.profiles, {
      dir: '/srv/p/profiles',
      maxBytes: 200 * 1024 * 1024,
      concurrency: 2,
      warm: 2,
      secret: null,
      previousSecrets: [],
    });
    const set = loadServiceConfig({
      DATA_DIR: '/srv/p',
      BROWSER_PROFILES_DIR: '/mnt/shared/profiles',
      BROWSER_PROFILE_MAX_MB: '10',
      BROWSER_PROFILE_CONCURRENCY: '4',
      BROWSER_PROFILE_WARM: '0',
      PROFILE_ENCRYPTION_SECRET: 'n'.repeat(32),
      PROFILE_ENCRYPTION_SECRET_PREVIOUS: `${'o'.repeat(32)}, ${'p'.repeat(40)}`,
    });
    assert.deepEqual(set.profiles, {
      dir: '/mnt/shared/profiles',
      maxBytes: 10 * 1024 * 1024,
      concurrency: 4,
      warm: 0,
      secret: 'n'.repeat(32),
      previousSecrets: ['o'.repeat(32), 'p'.repeat(40)],
    });
    for (const [name, value] of [
      ['BROWSER_PROFILE_MAX_MB', '0'],
      ['BROWSER_PROFILE_CONCURRENCY', '0'],
      ['BROWSER_PROFILE_CONCURRENCY', 'two'],
      ['BROWSER_PROFILE_WARM', '-1'],
      ['BROWSER_PROFILE_WARM', '65'],
      ['PROFILE_ENCRYPTION_SECRET', 'short'],
      ['PROFILE_ENCRYPTION_SECRET_PREVIOUS', `${'o'.repeat(32)},short`],
    ] as const)
      assert.throws(
        () => loadServiceConfig({ [name]: value }),
        (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith(`${name}: `)),
        `${name}=${value}`,
      );
  });
});
