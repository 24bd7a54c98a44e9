import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationFailed } from '../errors.ts';
import { checkSearchRequest, parseSearchBody } from './search.ts';
import { MAX_SITES, normaliseHost } from './site-hosts.ts';

const issues = (text: string, rules = {}) => {
  try {
    parseSearchBody(text, rules);
  } catch (err) {
    assert.ok(err instanceof ValidationFailed);
    return err.issues.map((i) => i.field);
  }
  return [];
};
const refused = (body: Record<string, unknown>, rules = {}) => issues(JSON.stringify({ query: 'x', ...body }), rules);

test('valid bodies, defaults and unknown fields', () => {
  assert.deepEqual(parseSearchBody('{"query":"x"}'), { query: 'x', language: 'en' });
  assert.deepEqual(parseSearchBody('{"query":"x","language":"PT-br","extra":1}'), { query: 'x', language: 'pt' });
  assert.equal(parseSearchBody(JSON.stringify({ query: '𝄞'.repeat(348) })).query.length, 696);
});

test('invalid bodies name their fields', () => {
  assert.deepEqual(issues('{"query":""}'), ['query']);
  assert.deepEqual(issues(JSON.stringify({ query: 'a'.repeat(349) })), ['query']);
  assert.deepEqual(issues('{"query":"\\ud800"}'), ['query']);
  assert.deepEqual(issues('{"language":"fra"}'), ['query', 'language']);
  assert.deepEqual(issues('[]'), ['body']);
  assert.deepEqual(issues('{'), ['body']);
});

describe('count and offset', () => {
  test('good values parse; offset 0 is as if absent', () => {
    assert.deepEqual(parseSearchBody('{"query":"x","count":1,"offset":0}'), { query: 'x', language: 'en', count: 1 });
    assert.deepEqual(parseSearchBody('{"query":"x","count":50,"offset":150}'), { query: 'x', language: 'en', count: 50, offset: 150 });
    assert.deepEqual(parseSearchBody('{"query":"x","offset":190}', { defaultCount: 10 }), { query: 'x', language: 'en', offset: 190 });
    assert.deepEqual(parseSearchBody('{"query":"x","count":7}').count, 7);
  });

  test('every bad count is a 400 naming count', () => {
    for (const count of [0, -1, 51, 1000, 2.5, '10', null, true, [10], { n: 10 }])
      assert.deepEqual(refused({ count }), ['count'], JSON.stringify(count));
  });

  test('every bad offset is a 400 naming offset', () => {
    for (const offset of [-1, 0.5, '10', null, false, [0], 1e9]) assert.deepEqual(refused({ offset }), ['offset'], JSON.stringify(offset));
  });

  test('results are paged 200 deep: offset + count past 200 names offset, with the default count when none is given', () => {
    assert.deepEqual(refused({ offset: 191 }, { defaultCount: 10 }), ['offset']);
    assert.deepEqual(refused({ offset: 190 }, { defaultCount: 10 }), []);
    assert.deepEqual(refused({ offset: 181 }, { defaultCount: 20 }), ['offset']);
    assert.deepEqual(refused({ offset: 151, count: 50 }), ['offset']);
    assert.deepEqual(refused({ offset: 199, count: 1 }), []);
    assert.deepEqual(refused({ offset: 200, count: 1 }), ['offset']);
    // Not knowing the default (the portal), only what no count could make valid is refused.
    assert.deepEqual(refused({ offset: 199 }), []);
    assert.deepEqual(refused({ offset: 200 }), ['offset']);
    const r = checkSearchRequest({ query: 'x', offset: 195, count: 10 });
    assert.ok(!r.ok);
    assert.match(r.issues[0]?.message ?? '', /at most 200.*last page starts at offset 190/);
  });

  test('each offending field is named once, the bound beside the others', () => {
    assert.deepEqual(refused({ query: '', offset: 300 }), ['query', 'offset']);
    assert.deepEqual(refused({ count: 0, offset: 300 }), ['count'], 'a bad count says nothing of the bound');
    assert.deepEqual(refused({ count: 'x', offset: -2, sites: 'a', excludeSites: [1] }), ['count', 'offset', 'sites', 'excludeSites']);
  });
});

describe('sites and excludeSites', () => {
  test('good values: lower-cased, without repeats or a trailing dot, sorted; an international name in its ASCII form; [] is no filter', () => {
    const body = parseSearchBody(
      JSON.stringify({
        query: 'x',
        sites: ['Docs.Python.ORG', 'debian.org', 'docs.python.org.', 'bücher.de'],
        excludeSites: ['wiki.debian.org'],
      }),
    );
    assert.deepEqual(body.sites, ['debian.org', 'docs.python.org', 'xn--bcher-kva.de']);
    assert.deepEqual(body.excludeSites, ['wiki.debian.org']);
    assert.deepEqual(parseSearchBody('{"query":"x","sites":[],"excludeSites":[]}'), { query: 'x', language: 'en' });
    assert.deepEqual(parseSearchBody('{"query":"x","sites":["localhost","192.0.2.7","under_score.example"]}').sites, [
      '192.0.2.7',
      'localhost',
      'under_score.example',
    ]);
    const twenty = Array.from({ length: MAX_SITES }, (_, i) => `h${i}.example`);
    assert.equal(parseSearchBody(JSON.stringify({ query: 'x', sites: twenty, excludeSites: twenty })).sites?.length, 20);
  });

  test('every bad value is a 400 naming its list, the message saying what is wrong', () => {
    const bad: [unknown, RegExp][] = [
      ['python.org', /must be an array/],
      [null, /must be an array/],
      [{ 0: 'python.org' }, /must be an array/],
      [[''], /empty/],
      [[' python.org'], /must be a host name/],
      [['https://python.org'], /without a scheme/],
      [['HTTP://python.org'], /without a scheme/],
      [['python.org/docs'], /without a path/],
      [['python.org?x=1'], /without a path/],
      [['python.org:443'], /without a port/],
      [['user@python.org'], /user information/],
      [['*.python.org'], /wildcards/],
      [['[::1]'], /must be a host name/],
      [['-python.org'], /must be a host name/],
      [['python..org'], /must be a host name/],
      [['py%74hon.org'], /must be a host name/],
      [[`${'a'.repeat(64)}.org`], /must be a host name/],
      [[7], /is not a string/],
      [[null], /is not a string/],
      [Array.from({ length: MAX_SITES + 1 }, (_, i) => `h${i}.example`), /at most 20 hosts/],
    ];
    for (const field of ['sites', 'excludeSites'])
      for (const [value, message] of bad) {
        const r = checkSearchRequest({ query: 'x', [field]: value });
        assert.ok(!r.ok, `${field}: ${JSON.stringify(value)}`);
        assert.deepEqual([...new Set(r.issues.map((i) => i.field))], [field], JSON.stringify(value));
        assert.match(r.issues[0]?.message ?? '', message, JSON.stringify(value));
      }
  });

  test('one issue per bad entry', () => {
    const r = checkSearchRequest({ query: 'x', sites: ['ok.example', 'https://a.example', 'b.example:8080', 'fine.example'] });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.map((i) => [i.field, i.message]),
      [
        ['sites', '"https://a.example" must be a host name without a scheme, such as docs.python.org'],
        ['sites', '"b.example:8080" must be a host name without a port'],
      ],
    );
  });

  test('normaliseHost shortens a long value it quotes', () => {
    const h = normaliseHost(`https://${'x'.repeat(200)}`);
    assert.ok('problem' in h && h.problem.length < 140, JSON.stringify(h));
  });
});
