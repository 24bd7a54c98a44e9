import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatPage, MAX_LISTED_LINKS } from './fetch.ts';

describe('the fetch tool’s answer', () => {
  const page = {
    url: 'https://a.test/old',
    finalUrl: 'https://a.test/new',
    status: 404,
    title: 'Gone',
    content: '# Gone\n\nNothing here.',
    links: [],
  };

  it('says where the page is, its redirect and a status that is not 200, then its content', () => {
    assert.equal(
      formatPage(page),
      '### Gone\n- URL: https://a.test/new\n- Redirected from: https://a.test/old\n- HTTP status: 404\n\n# Gone\n\nNothing here.',
    );
    const plain = formatPage({ ...page, url: page.finalUrl, status: 200 });
    assert.doesNotMatch(plain, /Redirected|HTTP status/);
  });

  it('lists the first links and counts the rest', () => {
    const links = Array.from({ length: MAX_LISTED_LINKS + 3 }, (_, i) => `https://a.test/${i}`);
    const text = formatPage({ ...page, links });
    assert.match(text, /### Links\n- https:\/\/a\.test\/0\n/);
    assert.ok(text.includes(`- https://a.test/${MAX_LISTED_LINKS - 1}\n- … and 3 more`));
    assert.ok(!text.includes(`https://a.test/${MAX_LISTED_LINKS}\n`));
    assert.match(formatPage({ ...page, content: '' }), /\(the page has no text\)/);
  });
});
