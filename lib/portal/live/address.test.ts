import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planNavigation, worthFallingBack } from './address.ts';

const opens = (input: string) => {
  const plan = planNavigation(input);
  assert.ok(plan.ok, `${input} should open: ${plan.ok ? '' : plan.message}`);
  return { url: plan.url, fallback: plan.fallback };
};
const refuses = (input: string) => {
  const plan = planNavigation(input);
  assert.ok(!plan.ok, `${input} should be refused`);
  return plan.message;
};

describe('planNavigation', () => {
  it('opens a full web address as written', () => {
    assert.deepEqual(opens(' http://x.test '), { url: 'http://x.test/', fallback: null });
    assert.deepEqual(opens('HTTPS://Example.com/a b'), { url: 'https://example.com/a%20b', fallback: null });
    assert.deepEqual(opens('about:blank'), { url: 'about:blank', fallback: null });
  });

  it('opens data: addresses, as a desktop browser does when one is typed', () => {
    assert.deepEqual(opens('data:text/html,<h1>hi</h1>'), { url: 'data:text/html,<h1>hi</h1>', fallback: null });
  });

  it('tries a bare public name over https first, then over http', () => {
    assert.deepEqual(opens('example.com/a b'), { url: 'https://example.com/a%20b', fallback: 'http://example.com/a%20b' });
    assert.deepEqual(opens('example.com:8443/x?q#h'), { url: 'https://example.com:8443/x?q#h', fallback: 'http://example.com:8443/x?q#h' });
  });

  it('opens local names and IP addresses over http, where no public certificate can exist', () => {
    assert.deepEqual(opens('localhost:8080/x'), { url: 'http://localhost:8080/x', fallback: null });
    assert.deepEqual(opens('app.localhost'), { url: 'http://app.localhost/', fallback: null });
    assert.deepEqual(opens('intranet/wiki'), { url: 'http://intranet/wiki', fallback: null });
    assert.deepEqual(opens('10.0.0.5:3000'), { url: 'http://10.0.0.5:3000/', fallback: null });
    assert.deepEqual(opens('[::1]:8080'), { url: 'http://[::1]:8080/', fallback: null });
  });

  it('refuses other schemes and says why, and which ones open', () => {
    assert.match(
      refuses('file:///etc/passwd'),
      /^file: addresses cannot be opened here: .*machine that runs the browser service.*http and https addresses, data: and about:blank/,
    );
    assert.match(refuses('javascript:alert(1)'), /^javascript: .*run a script/);
    assert.match(refuses('chrome://settings'), /^chrome: addresses cannot be opened here.*not a web address/);
    assert.match(refuses('view-source:http://a'), /^view-source: /);
    assert.match(refuses('about:config'), /^about: /);
  });

  it('refuses what is not an address, clipping long input', () => {
    assert.equal(refuses('   '), 'Type an address to open.');
    assert.match(refuses('http://'), /is not an address a browser can open/);
    assert.match(refuses(`ftp://${'a'.repeat(200)}`), /…/);
  });
});

describe('worthFallingBack', () => {
  it('tries http again only when the secure connection could not be made', () => {
    for (const error of [
      'net::ERR_TUNNEL_CONNECTION_FAILED',
      'net::ERR_CONNECTION_REFUSED',
      'net::ERR_CERT_AUTHORITY_INVALID',
      'net::ERR_SSL_PROTOCOL_ERROR',
    ]) {
      assert.equal(worthFallingBack(error), true, error);
    }
    for (const error of ['', 'net::ERR_ABORTED', 'net::ERR_BLOCKED_BY_ADMINISTRATOR', 'net::ERR_UNSAFE_PORT'])
      assert.equal(worthFallingBack(error), false, error);
  });
});
