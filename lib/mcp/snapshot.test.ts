import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeSection, fenced, formatTabs, js } from './snapshot.ts';

describe('snapshot formatting', () => {
  it('lists tabs with their index, the current one marked', () => {
    assert.equal(
      formatTabs([
        { index: 0, current: false, title: 'One', url: 'http://a.test/' },
        { index: 1, current: true, title: 'Two', url: 'http://b.test/' },
      ]),
      '- 0: [One] (http://a.test/)\n- 1: (current) [Two] (http://b.test/)',
    );
    assert.match(formatTabs([]), /No open tabs/);
  });

  it('fences text so that its own backticks cannot close the block', () => {
    assert.equal(fenced('yaml', 'a'), '```yaml\na\n```');
    assert.equal(fenced('yaml', 'x ```` y'), '`````yaml\nx ```` y\n`````');
  });

  it('reports the code it ran as Playwright MCP does', () => {
    assert.equal(
      codeSection([`await page.goto(${js('http://a.test/')});`]),
      '### Ran Playwright code\n```js\nawait page.goto("http://a.test/");\n```',
    );
  });
});
