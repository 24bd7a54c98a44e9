import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clipAddress } from '#app/_lib/address.ts';
import { endReasonText } from '#app/_lib/end-reasons.ts';

test('a long address is cut to the length asked, ending in an ellipsis; a short one is left as it is', () => {
  const data = `data:text/html,${'<p>x</p>'.repeat(10_000)}`;
  const cut = clipAddress(data, 50);
  assert.equal(cut.length, 50);
  assert.ok(cut.endsWith('…'));
  assert.ok(data.startsWith(cut.slice(0, -1)));
  assert.equal(clipAddress('https://example.com/', 50), 'https://example.com/');
});

test('reasons a browser ended are said in the dashboard’s words, a script closing its socket as Stopped', () => {
  assert.equal(endReasonText('client-closed'), 'Stopped');
  assert.equal(endReasonText('stopped'), 'Stopped');
  assert.equal(endReasonText('lifetime'), 'Lifetime limit');
  assert.equal(endReasonText('something-new'), 'something-new');
  assert.equal(endReasonText(null), 'Ended');
});
