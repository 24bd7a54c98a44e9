import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { httpResponse, page, runIndex, warcRecord } from '../helpers/search.ts';

describe('npm run index: progress', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const warc = join(dataDir, 'three.warc.gz');
  writeFileSync(
    warc,
    Buffer.concat(
      ['alpha', 'beta', 'gamma'].map((w) =>
        gzipSync(warcRecord('response', `https://site.test/${w}.html`, httpResponse(page(`The ${w} page`, `<p>All about ${w}.</p>`)))),
      ),
    ),
  );

  it('off a terminal (a CI log), writes a plain line as each phase ends (its time, the cores busy and the most memory so far), and the summary with the memory used', () => {
    const r = runIndex(join(dataDir, 'log'), [warc]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stderr.includes('\r') && !r.stderr.includes('\x1b'), 'no bar drawn in place');
    assert.match(
      r.stderr,
      /^reading pages: 3 pages, \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\nindexing text: 3\/3 pages, \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\nwriting postings: (\d+)\/\1 term lists, \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\nordering words: \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\nranking pages: \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\noptimising: \d+\.\d s, \d+\.\d cores, at most \d+ MB so far\n$/,
    );
    assert.match(r.stdout, /^indexed 3 pages \(3 new, .* in \d+\.\d s \(\d+ pages\/s, at most \d+ MB of memory\)\n/);
  });

  it('with --quiet, writes only the summary', () => {
    const r = runIndex(join(dataDir, 'quiet'), [warc, '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^indexed 3 pages/);
  });

  it('takes the number of threads that parse pages, within bounds', () => {
    const r = runIndex(join(dataDir, 'threads'), [warc, '--threads', '2', '--quiet']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^indexed 3 pages/);
    const bad = runIndex(join(dataDir, 'threads'), [warc, '--threads', '0']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--threads takes a whole number from 1 to 64/);
  });
});
