import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageLanguage } from './language-tags.ts';

test("a page's language: its markup's when declared, else what most of its text is in", () => {
  assert.equal(pageLanguage({ en: 0.9, de: 0.1 }, 'de-DE'), 'de');
  assert.equal(pageLanguage({ en: 0.3, fr: 0.7 }, null), 'fr');
  assert.equal(pageLanguage({ nb: 1 }, 'no'), 'nb', 'as searchers write it');
  assert.equal(pageLanguage({}, null), null);
});
