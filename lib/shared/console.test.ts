import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogLine, prettyRecord, startBanner, StartWatch } from './console.ts';

const at = Date.UTC(2026, 10, 23, 9, 5, 7);

describe('the terminal view of the logs', () => {
  it('reads only our JSON log lines', () => {
    assert.deepEqual(parseLogLine('{"level":30,"msg":"hi"}'), { level: 30, msg: 'hi' });
    for (const line of ['plain text', '{"no":"level"}', '{broken', '[1,2]', '']) assert.equal(parseLogLine(line), null, line);
  });

  it('prints time, process, level, message and the fields, without pid or host', () => {
    const line = prettyRecord(
      { level: 40, time: at, pid: 7, hostname: 'h', name: 'service', msg: 'egress refused', host: 'a b', n: 3, nested: { x: 1 } },
      false,
    );
    assert.match(line, /^\d\d:\d\d:\d\d service warn {2}egress refused {2}host="a b" n=3 nested=\{"x":1\}$/);
    assert.doesNotMatch(line, /pid|hostname/);
    assert.ok(prettyRecord({ level: 50, msg: 'x' }, true).includes('\u001b[31merror'), 'errors in red on a terminal');
  });

  it('prints the banner once, when both processes listen, with what to do next', () => {
    const watch = new StartWatch();
    assert.equal(watch.see({ level: 40, msg: 'search index is empty: every search answers no results' }), null);
    assert.equal(
      watch.see({
        level: 30,
        msg: 'service listening',
        url: 'http://127.0.0.1:3100',
        publicUrl: 'http://127.0.0.1:3100',
        dataDir: '/srv/data',
      }),
      null,
    );
    const facts = watch.see({ level: 30, msg: 'portal listening', url: 'http://127.0.0.1:3000', publicUrl: 'https://portal.example' });
    assert.deepEqual(facts, {
      portalUrl: 'https://portal.example',
      serviceUrl: 'http://127.0.0.1:3100',
      dataDir: '/srv/data',
      indexEmpty: true,
    });
    assert.equal(watch.see({ level: 30, msg: 'portal listening', url: 'x' }), null, 'once');
    const banner = startBanner(facts!, false);
    for (const part of [
      'https://portal.example',
      'http://127.0.0.1:3100',
      '/srv/data',
      'npm run keys -- create',
      'npm run index --',
      'Ctrl+C',
    ]) {
      assert.ok(banner.includes(part), part);
    }
    assert.ok(!startBanner({ ...facts!, indexEmpty: false }, false).includes('npm run index'));
  });
});
