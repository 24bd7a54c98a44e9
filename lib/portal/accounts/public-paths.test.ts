import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeCallback } from './public-paths.ts';

describe('safeCallback', () => {
  it('keeps a same-site path with its query and fragment', () => {
    assert.equal(safeCallback('/teams/team_abc/search?q=a%20b#r2'), '/teams/team_abc/search?q=a%20b#r2');
    assert.equal(safeCallback('/'), '/');
  });

  it('normalises what it keeps the way a browser reads it', () => {
    assert.equal(safeCallback('/a/../teams'), '/teams');
    assert.equal(safeCallback('/teams/ä'), '/teams/%C3%A4');
  });

  // Each spelling below leaves the portal in some browser or URL parser; the first is the one the
  // review used (`/%09/…` arrives decoded as a tab).
  const offsite = [
    '/\t/127.0.0.2:7777/x',
    '/\n/evil.example',
    '/\r/evil.example',
    '/\u0000/evil.example',
    '\t//evil.example',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '/\\/evil.example',
    '\\\\evil.example',
    '/./\\evil.example',
    '/.//evil.example',
    '/%2e//evil.example',
    '/x/..//evil.example',
    'https://evil.example/',
    'http:evil.example',
    'javascript:alert(1)',
    'data:text/html,x',
    ' /\t/evil',
    '/\u007f/evil.example',
    '/\u0085/evil.example',
    `/${'a'.repeat(3000)}`,
    '',
    null,
    undefined,
  ];
  for (const value of offsite) {
    it(`refuses ${JSON.stringify(value)?.slice(0, 40)}`, () => assert.equal(safeCallback(value), '/'));
  }

  it('never returns a value a browser would resolve to another origin', () => {
    for (const value of offsite) {
      assert.equal(new URL(safeCallback(value), 'http://portal.test').origin, 'http://portal.test');
    }
  });
});
