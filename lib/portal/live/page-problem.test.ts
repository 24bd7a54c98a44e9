import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { egressProblem, egressProblemOf, navigationProblem, tunnelProblem } from './page-problem.ts';

describe('navigationProblem', () => {
  it('says nothing of a cancelled navigation', () => {
    assert.equal(navigationProblem('https://a.test/', 'net::ERR_ABORTED'), null);
    assert.equal(navigationProblem('https://a.test/', ''), null);
  });

  it('calls a tunnel refused for a private or loopback address blocked, and names the setting that opens it', () => {
    for (const url of [
      'https://10.1.2.3/',
      'https://127.0.0.1:8443/',
      'https://[::1]/',
      'https://localhost/',
      'https://169.254.169.254/',
    ]) {
      const p = navigationProblem(url, 'net::ERR_TUNNEL_CONNECTION_FAILED');
      assert.match(p?.title ?? '', /^Blocked: .* is a private or reserved address$/, url);
      assert.match(p?.operator ?? '', /BROWSER_EGRESS_ALLOW/, url);
      assert.equal(p?.code, 'net::ERR_TUNNEL_CONNECTION_FAILED');
      assert.equal(p?.url, url);
    }
  });

  it('gives both possibilities when a public name could not be tunnelled, without the raw code in the words', () => {
    const p = navigationProblem('https://nowhere.example/', 'net::ERR_TUNNEL_CONNECTION_FAILED');
    assert.equal(p?.title, 'Could not connect to nowhere.example');
    assert.match(p?.detail ?? '', /name may not exist.*not answer.*private or reserved/);
    assert.match(p?.operator ?? '', /no route to the internet.*BROWSER_EGRESS_ALLOW/);
    assert.doesNotMatch(`${p?.title} ${p?.detail}`, /ERR_/);
  });

  it("words a failed tunnel by the service's judgement: the policy names BROWSER_EGRESS_ALLOW, the network does not", () => {
    const code = 'net::ERR_TUNNEL_CONNECTION_FAILED';
    const denied = tunnelProblem('https://intranet.test/', code, {
      host: 'intranet.test',
      verdict: 'denied-address',
      detail: '10.1.2.3 is in 10.0.0.0/8 (private-use)',
    });
    assert.equal(denied.code, code);
    assert.equal(denied.title, 'Blocked: intranet.test is a private or reserved address');
    assert.match(denied.operator ?? '', /can allow its address or range with BROWSER_EGRESS_ALLOW/);

    const unresolved = tunnelProblem('https://example.com/', code, {
      host: 'example.com',
      verdict: 'unresolved',
      detail: 'did not resolve (EAI_AGAIN)',
    });
    assert.equal(unresolved.title, 'example.com was not found');
    assert.match(unresolved.operator ?? '', /cannot resolve names on the internet.*BROWSER_EGRESS_ALLOW does not help here/);

    const allowed = tunnelProblem('https://93.184.215.14/', code, { host: '93.184.215.14', verdict: 'allowed', detail: '93.184.215.14' });
    assert.equal(allowed.title, 'Could not connect to 93.184.215.14');
    assert.match(allowed.operator ?? '', /no route to the internet.*BROWSER_EGRESS_ALLOW does not help here/);

    const proxied = tunnelProblem('https://example.com/', code, {
      host: 'example.com',
      verdict: 'through-proxy',
      detail: 'your proxy failed: it refused the login',
    });
    assert.match(proxied.detail, /your proxy failed: it refused the login/);
    assert.equal(proxied.operator, null);
  });

  it('words the common failures and keeps the code for the curious', () => {
    const cases: [string, RegExp][] = [
      ['net::ERR_NAME_NOT_RESOLVED', /^a\.test was not found$/],
      ['net::ERR_CONNECTION_REFUSED', /^a\.test did not answer$/],
      ['net::ERR_CONNECTION_RESET', /^a\.test closed the connection$/],
      ['net::ERR_CERT_AUTHORITY_INVALID', /^a\.test’s certificate is not trusted$/],
      ['net::ERR_SSL_PROTOCOL_ERROR', /^A secure connection to a\.test failed$/],
      ['net::ERR_TOO_MANY_REDIRECTS', /redirects in a loop/],
      ['net::ERR_BLOCKED_BY_ADMINISTRATOR', /policy/],
      ['net::ERR_SOMETHING_NEW', /^The page could not be loaded$/],
    ];
    for (const [code, title] of cases) {
      const p = navigationProblem('https://a.test/', code);
      assert.match(p?.title ?? '', title, code);
      assert.equal(p?.code, code);
      assert.equal(p?.operator, null, code);
    }
    assert.match(navigationProblem('http://a.test:25/', 'net::ERR_UNSAFE_PORT')?.title ?? '', /^Port 25 /);
    assert.match(navigationProblem('https://a.test/', 'net::ERR_SOMETHING_NEW')?.detail ?? '', /net::ERR_SOMETHING_NEW/);
  });
});

describe('egressProblem', () => {
  it("explains the proxy's refusal with its own account and the setting that opens it", () => {
    const p = egressProblem('http://db.internal:5432/', 'denied-address', '10.0.0.7 is in 10.0.0.0/8 (private-use)');
    assert.equal(p.title, 'Blocked: db.internal:5432 is a private or reserved address');
    assert.match(p.detail, /refused the connection: 10\.0\.0\.7 is in 10\.0\.0\.0\/8 \(private-use\)\./);
    assert.match(p.operator ?? '', /BROWSER_EGRESS_ALLOW/);
    assert.equal(p.code, 'egress:denied-address');
  });

  it('tells a name that does not exist from a site that does not answer', () => {
    assert.equal(egressProblem('http://nope.test/', 'unresolved', '').title, 'nope.test was not found');
    assert.match(egressProblem('http://nope.test/', 'unresolved', '').operator ?? '', /cannot resolve names on the internet/);
    assert.doesNotMatch(egressProblem('http://up.test:81/', 'unreachable', '').operator ?? '', /can allow/);
    assert.equal(egressProblem('http://up.test:81/', 'unreachable', 'connection refused').title, 'up.test:81 did not answer');
  });

  it("explains each failure of the tenant's own proxy, with the proxy's account", () => {
    const denied = egressProblem(
      'http://a.test/',
      'proxy-denied',
      'your proxy http://10.0.0.9:3128: 10.0.0.9 is in 10.0.0.0/8 (private-use)',
    );
    assert.equal(denied.title, 'Blocked: your proxy is at a private or reserved address');
    assert.match(denied.detail, /X-Browser-Proxy: your proxy http:\/\/10\.0\.0\.9:3128/);
    assert.match(denied.operator ?? '', /BROWSER_EGRESS_ALLOW/);
    assert.equal(egressProblem('http://a.test/', 'proxy-auth', '407').title, 'Your proxy refused the login');
    assert.equal(egressProblem('http://a.test/', 'proxy-refused', '').title, 'Your proxy would not connect to a.test');
    assert.equal(egressProblem('http://a.test/', 'proxy-unreachable', 'ECONNREFUSED').title, 'Your proxy did not answer');
    assert.equal(egressProblemOf('http://a.test/', { 'x-periscope-egress': 'proxy-auth' })?.code, 'egress:proxy-auth');
  });
});

describe('egressProblemOf', () => {
  const refused = { 'X-Periscope-Egress': 'denied-address', 'x-periscope-egress-detail': '10.0.0.7 is in 10.0.0.0/8 (private-use)' };

  it("reads the proxy's account of a plain-http answer, whatever the header's case", () => {
    assert.equal(egressProblemOf('http://db.internal/', refused)?.code, 'egress:denied-address');
    assert.match(egressProblemOf('http://db.internal/', refused)?.detail ?? '', /10\.0\.0\.7/);
  });

  it('believes no such header on an https answer: inside the tunnel only the site speaks', () => {
    assert.equal(egressProblemOf('https://evil.example/', refused), null);
  });

  it('ignores a reason it does not know, and an answer without one', () => {
    assert.equal(egressProblemOf('http://a.test/', { 'x-periscope-egress': 'please-allow-10.0.0.0/8' }), null);
    assert.equal(egressProblemOf('http://a.test/', { 'content-type': 'text/html' }), null);
  });
});
