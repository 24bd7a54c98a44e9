import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutText, markdownNote, snapshotNote } from './limits.ts';

describe('cutText', () => {
  it('keeps text that fits whole', () => {
    assert.deepEqual(
      cutText('abc', 3, () => 'never'),
      { text: 'abc', cut: false },
    );
  });

  it('cuts at the last line break within the limit and says how much was left out', () => {
    const text = ['- heading "One" [ref=e1]', '- button "Two" [ref=e2]', '- link "Three" [ref=e3]'].join('\n');
    const { text: out, cut } = cutText(text, 40, (n) => `[${n} left]`);
    assert.equal(cut, true);
    assert.equal(out, `- heading "One" [ref=e1]\n[${text.length - 24} left]`);
  });

  it('cuts inside a line when the first line alone is too long', () => {
    const { text, cut } = cutText('x'.repeat(100), 10, (n) => `(${n})`);
    assert.equal(cut, true);
    assert.equal(text, `${'x'.repeat(10)}\n(90)`);
  });

  it('has notes that tell a model what to do next', () => {
    assert.match(snapshotNote(12345), /12,345 more characters.*browser_snapshot/);
    assert.match(markdownNote(7), /7 more characters/);
  });
});
