import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatResults } from './search.ts';

describe('search results as Markdown', () => {
  it('numbers the results with their link, place and snippet', () => {
    const text = formatResults('kettle', {
      results: [
        { url: 'https://a.test/k', title: 'Descaling [the] kettle', snippet: 'Use  citric\nacid.', section: ['Handbook', 'Kitchen'] },
        { url: 'https://b.test/', title: '', snippet: '' },
      ],
      next: { offset: 2 },
      corrected: { query: 'kettle' },
    });
    assert.equal(
      text,
      [
        '### Search results for "kettle"',
        'Searched for "kettle" instead (misspelt words corrected).',
        '1. [Descaling \\[the\\] kettle](https://a.test/k) — Handbook › Kitchen',
        '   Use citric acid.',
        '2. [https://b.test/](https://b.test/)',
        'More results exist: search again with a larger count (at most 50).',
      ].join('\n'),
    );
  });

  it('says when nothing was found', () => {
    assert.match(formatResults('zzz', { results: [] }), /No results\./);
    assert.doesNotMatch(formatResults('zzz', { results: [] }), /find something/);
  });

  it('offers the searches the service found something for, when nothing was found', () => {
    const text = formatResults('qwzx coroutine yyqv', {
      results: [],
      tries: [
        { query: 'qwzx coroutine', language: 'de', why: 'fewer-words' },
        { query: 'coroutine', language: 'de', why: 'one-word' },
        { query: 'qwzx coroutine yyqv', language: 'en', why: 'english' },
      ],
    });
    assert.equal(
      text,
      [
        '### Search results for "qwzx coroutine yyqv"',
        'No results.',
        'These searches find something (run one with this tool):',
        '- "qwzx coroutine" (language de): without its last word',
        '- "coroutine" (language de): its longest word alone',
        '- "qwzx coroutine yyqv" (language en): in English',
      ].join('\n'),
    );
  });
});
