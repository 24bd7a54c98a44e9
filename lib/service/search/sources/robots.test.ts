import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRobots } from './robots.ts';

const UA = 'PeriscopeBot/0.1';
const site = 'https://docs.example.test';
const robots = (text: string) => parseRobots(`${site}/robots.txt`, text, UA);

test('groups, longest match, wildcards and crawl-delay', () => {
  const r = robots(
    'User-agent: *\nDisallow: /private/\nAllow: /private/open.html\nDisallow: /*.pdf$\nCrawl-delay: 2\n\nUser-agent: OtherBot\nDisallow: /\n',
  );
  assert.ok(r.allowed(`${site}/`));
  assert.ok(!r.allowed(`${site}/private/x.html`));
  assert.ok(r.allowed(`${site}/private/open.html`));
  assert.ok(!r.allowed(`${site}/a/b.pdf`));
  assert.ok(r.allowed(`${site}/a/b.pdf?x`));
  assert.equal(r.crawlDelayMs, 2000);
});

test('our own group wins over *, matched by product token in any case', () => {
  const mine = robots('User-agent: periscopebot\nDisallow: /mine\n\nUser-agent: *\nDisallow: /\n');
  assert.ok(mine.allowed(`${site}/other`));
  assert.ok(!mine.allowed(`${site}/mine/x`));
  assert.equal(mine.crawlDelayMs, null);
});

test('percent-encoding and comments are read as RFC 9309 says', () => {
  const r = robots('# a comment\nUser-agent: *  # ours too\nDisallow: /caf%C3%A9/\nAllow: /\n');
  assert.ok(!r.allowed(`${site}/café/menu`));
  assert.ok(!r.allowed(`${site}/caf%c3%a9/menu`));
  assert.ok(r.allowed(`${site}/cafe/menu`));
});

test('an empty or unreadable file allows everything', () => {
  assert.ok(robots('').allowed(`${site}/x`));
  assert.ok(robots('\u0000\u0001 not robots at all').allowed(`${site}/x`));
  assert.ok(robots('User-agent: *\nDisallow:\n').allowed(`${site}/x`));
});
