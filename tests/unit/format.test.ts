import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBytes, formatDate, onlookersText } from '../../app/_lib/format.ts';

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

  it('writes sizes in the unit a person reads, with one decimal below ten', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1024), '1.0 KB');
    assert.equal(formatBytes(184_211), '180 KB');
    assert.equal(formatBytes(13 * 1024 * 1024 + 400 * 1024), '13 MB');
    assert.equal(formatBytes(1.5 * 1024 ** 3), '1.5 GB');
  });
});
