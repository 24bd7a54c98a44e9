import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { parseUpstreamProxy, PROXY_HEADER_MAX_LENGTH } from './upstream-proxy.ts';

const parsed = (value: string) => {
  const r = parseUpstreamProxy(value);
  assert.ok(r.ok, `expected ${value} to parse: ${JSON.stringify(r)}`);
  assert.ok(r.proxy);
  return r.proxy;
};

const refused = (value: string | string[]) => {
  const r = parseUpstreamProxy(value);
  assert.equal(r.ok, false, `expected ${JSON.stringify(value)} to be refused`);
  if (r.ok) throw new Error('unreachable');
  assert.equal(r.issues.length, 1);
  assert.equal(r.issues[0]?.field, 'X-Browser-Proxy');
  return r.issues[0]!.message;
};

describe('parseUpstreamProxy', () => {
  it('reads no header as no proxy', () => {
    assert.deepEqual(parseUpstreamProxy(undefined), { ok: true, proxy: null });
  });

  it('reads each scheme, with and without credentials', () => {
    const http = parsed('http://alice:s3cret@proxy.example.com:8080');
    assert.equal(http.scheme, 'http');
    assert.equal(http.host, 'proxy.example.com');
    assert.equal(http.port, 8080);
    assert.deepEqual(http.credentials(), { username: 'alice', password: 's3cret' });
    assert.equal(http.basicAuthorization(), `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
    assert.equal(parsed('HTTPS://Proxy.Example.com:443/').scheme, 'https');
    assert.equal(parsed('HTTPS://Proxy.Example.com:443/').host, 'proxy.example.com');
    const socks = parsed('socks5://10.1.2.3:1080');
    assert.equal(socks.scheme, 'socks5');
    assert.equal(socks.credentials(), null);
    assert.equal(socks.basicAuthorization(), null);
    assert.equal(parsed('http://[2001:db8::1]:3128').host, '2001:db8::1');
  });

  it('percent-decodes the user name and password', () => {
    const p = parsed('http://user%40corp:p%3Ass%20w%C3%B6rd@proxy.example:80');
    assert.deepEqual(p.credentials(), { username: 'user@corp', password: 'p:ss wörd' });
    assert.equal(p.port, 80, 'the default port is kept as written');
  });

  it('never prints the credentials: not in JSON, not in inspect, not in String()', () => {
    const p = parsed('socks5://alice:planted-secret-7@proxy.example:1080');
    // The search sees the secret where it is meant to be.
    assert.match(JSON.stringify(p.credentials()), /planted-secret-7/);
    for (const text of [JSON.stringify({ p }), inspect(p), String(p), `${p}`, inspect({ p }, { depth: 5, showHidden: true })])
      assert.doesNotMatch(text, /planted-secret-7|alice/, text);
    assert.equal(String(p), 'socks5://proxy.example:1080');
  });

  it('refuses a bad scheme, a missing port, junk, an overlong value and a repeated header, naming the header', () => {
    assert.match(refused('ftp://proxy.example:21'), /scheme "ftp"/);
    assert.match(refused('socks4://proxy.example:1080'), /scheme/);
    assert.match(refused('http://proxy.example'), /must name its port/);
    assert.match(refused('http://proxy.example:'), /must name its port/);
    assert.match(refused('http://proxy.example:0'), /from 1 to 65535/);
    assert.match(refused('http://proxy.example:70000'), /from 1 to 65535/);
    assert.match(refused('junk'), /scheme:\/\//);
    assert.match(refused(''), /scheme:\/\//);
    assert.match(refused('http://proxy.example:8080/path'), /scheme:\/\//);
    assert.match(refused('http://proxy.example:8080?x=1'), /scheme:\/\//);
    assert.match(refused('http://-bad-.example:8080'), /host/);
    assert.match(refused('http://999.1.1.1:8080'), /host/);
    assert.match(refused('http://[zz::1]:8080'), /host/);
    assert.match(refused('http://:8080'), /host/);
    assert.match(refused(`http://${'a'.repeat(PROXY_HEADER_MAX_LENGTH)}.example:80`), /at most/);
    assert.match(refused(['http://a.example:1', 'http://b.example:2']), /once/);
  });

  it('refuses user information with characters it may not hold, and never repeats the value', () => {
    for (const value of [
      'http://us er:pw@proxy.example:80',
      'http://user:p"w@proxy.example:80',
      'http://user:pw%@proxy.example:80',
      'http://user:pw%ZZ@proxy.example:80',
      'http://user:p<w>@proxy.example:80',
      'http://user:pw%0A@proxy.example:80',
      'http://user%3Ax:pw@proxy.example:80',
      'http://:pw@proxy.example:80',
      'http://user:%FF@proxy.example:80',
      `http://user:${'p'.repeat(256)}@proxy.example:80`,
    ]) {
      const message = refused(value);
      assert.doesNotMatch(message, /pw|p"w|p<w>/, `the message must not repeat the password: ${message}`);
    }
  });
});
