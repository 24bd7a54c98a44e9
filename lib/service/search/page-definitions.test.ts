import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEF_BESIDE, DEF_INDEXED, DEF_PASSAGE, pageDefinitions } from './page-definitions.ts';

const byHead = (defs: ReturnType<typeof pageDefinitions>) => Object.fromEntries(defs.map((d) => [d.head, [d.weight, d.kind]]));

describe("a page's definitions", () => {
  it('keep a whole name with its mark, and a dotted name’s tail weaker and unmarked', () => {
    const got = byHead(pageDefinitions(['coroutine asyncio.gather(*aws)', 'json.dumps(obj)'], ['coroutine asyncio.gather(*aws)'], []));
    assert.deepEqual(got, {
      'asyncio gather': [1, DEF_INDEXED],
      gather: [0.3, 0],
      'json dumps': [1, 0],
      dumps: [0.3, 0],
    });
  });

  it('keep a marked heading as a name only an index anchor gives, and add only the mark to a name the page defines', () => {
    const got = byHead(pageDefinitions(['asyncio.gather()'], ['9.7.1. LIKE', 'asyncio.gather', 'Appendix C. SQL Key Words'], []));
    assert.deepEqual(got, {
      'asyncio gather': [1, DEF_INDEXED],
      gather: [0.3, 0],
      like: [1, DEF_INDEXED | DEF_BESIDE],
      'sql key words': [1, DEF_INDEXED | DEF_BESIDE],
    });
  });

  it('keep the words of a block an index anchor opens as marked passages, never over a name, a number or a short word', () => {
    const got = byHead(pageDefinitions(['asyncio.gather()'], [], ['gather the results of 2024 awaitables', 'results again']));
    assert.deepEqual(got, {
      'asyncio gather': [1, 0],
      gather: [0.3, 0],
      the: [1, DEF_INDEXED | DEF_BESIDE | DEF_PASSAGE],
      results: [1, DEF_INDEXED | DEF_BESIDE | DEF_PASSAGE],
      awaitables: [1, DEF_INDEXED | DEF_BESIDE | DEF_PASSAGE],
      again: [1, DEF_INDEXED | DEF_BESIDE | DEF_PASSAGE],
    });
  });

  it('are none for a page that defines nothing', () => {
    assert.deepEqual(pageDefinitions([], [], []), []);
  });
});
