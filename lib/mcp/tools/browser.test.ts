import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseUrl, optionsCode } from './browser.ts';

describe('browser tool helpers', () => {
  it('takes an address without a scheme as a browser address bar would', () => {
    assert.equal(normaliseUrl('https://example.com/a'), 'https://example.com/a');
    assert.equal(normaliseUrl('  example.com/docs '), 'https://example.com/docs');
    assert.equal(normaliseUrl('localhost:3000/x'), 'http://localhost:3000/x');
    assert.equal(normaliseUrl('127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(normaliseUrl('about:blank'), 'about:blank');
    assert.equal(normaliseUrl('data:text/html,<p>hi</p>'), 'data:text/html,<p>hi</p>');
  });

  it('writes only the options that are set', () => {
    assert.equal(optionsCode({}), '');
    assert.equal(optionsCode({ button: undefined, modifiers: ['Shift'] }), '{ modifiers: ["Shift"] }');
    assert.equal(optionsCode({ type: 'jpeg', quality: 80 }), '{ type: "jpeg", quality: 80 }');
  });
});
