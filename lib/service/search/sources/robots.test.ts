import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRobots } from './robots.ts';

test('groups, longest match, wildcards and crawl-delay', () => {
  const r = parseRobots(
    'User-agent: *\nDisallow: /private/\nAllow: /private/open.html\nDisallow: /*.pdf$\nCrawl-delay: 2\n\nUser-agent: OtherBot\nDisallow: /\n',
    'PeriscopeBot/0.1',
  );
  assert.ok(r.allowed('/'));
  assert.ok(!r.allowed('/private/x.html'));
  assert.ok(r.allowed('/private/open.html'));
  assert.ok(!r.allowed('/a/b.pdf'));
  assert.ok(r.allowed('/a/b.pdf?x'));
  assert.equal(r.crawlDelayMs, 2000);
  const mine = parseRobots('User-agent: periscopebot\nDisallow: /mine\n\nUser-agent: *\nDisallow: /\n', 'PeriscopeBot/0.1');
  assert.ok(mine.allowed('/other') && !mine.allowed('/mine/x'));
});
