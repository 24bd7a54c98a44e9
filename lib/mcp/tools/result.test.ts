import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answer, messageOf, textResult } from './result.ts';

describe('tool results', () => {
  it('keeps the first lines of a Playwright error, without its call log or colours', () => {
    const err = new Error('locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for getByRef("e9")\n');
    assert.equal(messageOf(err), 'locator.click: Timeout 5000ms exceeded.');
    assert.equal(messageOf(new Error('\u001b[31mred\u001b[39m')), 'red');
    assert.equal(messageOf('plain'), 'plain');
  });

  it('answers a thrown error as a tool error', async () => {
    const result = await answer(async () => {
      throw new Error('no such tab');
    });
    assert.deepEqual(result, { content: [{ type: 'text', text: '### Error\nno such tab' }], isError: true });
  });

  it('joins the sections it is given, leaving out empty ones', () => {
    assert.deepEqual(textResult(['### A', null, false, '### B']), { content: [{ type: 'text', text: '### A\n\n### B' }] });
  });
});
