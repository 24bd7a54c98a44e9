import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate, onlookersText } from '../../app/_lib/format.ts';

describe('words the portal shows', () => {
  it('says who would see a browser end, in one sentence', () => {
    assert.equal(onlookersText([{ name: 'Ann', control: true }]), 'Ann has control');
    assert.equal(onlookersText([{ name: 'Bob', control: false }]), 'Bob is watching');
    assert.equal(
      onlookersText([
        { name: 'Ann', control: true },
        { name: 'Bob', control: false },
        { name: 'Cy', control: false },
      ]),
      'Ann has control and Bob and Cy are watching',
    );
    assert.equal(
      onlookersText([
        { name: 'A', control: false },
        { name: 'B', control: false },
        { name: 'C', control: false },
      ]),
      'A, B and C are watching',
    );
  });

  it('writes dates the same on the server and in the browser', () => {
    assert.equal(formatDate(Date.UTC(2026, 10, 23, 9, 5)), '23 Nov 2026, 09:05 UTC');
    assert.equal(formatDate(null), 'Never');
  });
});
