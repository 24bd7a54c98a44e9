import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  filtersSites,
  focusedHosts,
  hostCounts,
  hostCovers,
  hostOf,
  hostShares,
  recurringHostShares,
  siteAllows,
  siteFiltersKey,
  sampleFocus,
  siteFocus,
  surpriseOf,
  surprisingHost,
} from './sites.ts';

describe('site filters', () => {
  it('a host covers itself and the hosts under it, nothing else', () => {
    assert.equal(hostCovers('python.org', 'python.org'), true);
    assert.equal(hostCovers('python.org', 'docs.python.org'), true);
    assert.equal(hostCovers('python.org', 'a.b.python.org'), true);
    assert.equal(hostCovers('python.org', 'notpython.org'), false);
    assert.equal(hostCovers('python.org', 'python.org.evil.example'), false);
    assert.equal(hostCovers('docs.python.org', 'python.org'), false);
    assert.equal(hostCovers('org', 'python.org'), true);
  });

  it("an address's host, lower case, without port or user", () => {
    assert.equal(hostOf('https://Docs.Python.org/3/library/asyncio.html'), 'docs.python.org');
    assert.equal(hostOf('http://localhost:8080/x'), 'localhost');
    assert.equal(hostOf('https://user:pw@example.org/'), 'example.org');
    assert.equal(hostOf('https://[2001:db8::1]:8443/'), '[2001:db8::1]');
    assert.equal(hostOf('https://example.org?q=1'), 'example.org');
    assert.equal(hostOf('ftp://example.org/'), null);
    assert.equal(hostOf('not an address'), null);
  });

  it('sites keep their hosts only; excludeSites drop theirs, and win over sites', () => {
    const only = { sites: ['python.org', 'debian.org'] };
    assert.deepEqual(
      ['docs.python.org', 'python.org', 'wiki.debian.org', 'notpython.org', 'postgresql.org'].map((h) => siteAllows(only, h)),
      [true, true, true, false, false],
    );
    const not = { excludeSites: ['docs.python.org'] };
    assert.deepEqual(
      ['docs.python.org', 'x.docs.python.org', 'python.org', 'postgresql.org'].map((h) => siteAllows(not, h)),
      [false, false, true, true],
    );
    const both = { sites: ['python.org'], excludeSites: ['docs.python.org'] };
    assert.deepEqual(
      ['docs.python.org', 'wiki.python.org', 'postgresql.org'].map((h) => siteAllows(both, h)),
      [false, true, false],
    );
    assert.equal(siteAllows({}, 'anything.example'), true);
    assert.equal(siteAllows({ sites: [], excludeSites: [] }, 'anything.example'), true);
  });

  it('whether a request filters at all, and one key whatever the order', () => {
    assert.equal(filtersSites({}), false);
    assert.equal(filtersSites({ sites: [], excludeSites: [] }), false);
    assert.equal(filtersSites({ excludeSites: ['a.example'] }), true);
    assert.equal(siteFiltersKey({ sites: ['b.example', 'a.example'] }), siteFiltersKey({ sites: ['a.example', 'b.example'] }));
    assert.notEqual(siteFiltersKey({ sites: ['a.example'] }), siteFiltersKey({ excludeSites: ['a.example'] }));
    assert.equal(siteFiltersKey({}), siteFiltersKey({ sites: [], excludeSites: [] }));
  });
});

describe('hosts of a list of results', () => {
  it("each host's share of the addresses", () => {
    const shares = hostShares(['https://a.test/1', 'https://a.test/2', 'https://B.test/3', 'not an address']);
    assert.deepEqual(
      [...shares],
      [
        ['a.test', 0.5],
        ['b.test', 0.25],
      ],
    );
    assert.equal(hostShares([]).size, 0);
    assert.deepEqual(
      [...hostCounts(['https://a.test/1', 'https://b.test/2', 'https://A.test/3', 'mailto:x@a.test'])],
      [
        ['a.test', 2],
        ['b.test', 1],
      ],
    );
  });

  it('shares among the hosts a list comes back to', () => {
    const list = ['https://a.test/1', 'https://b.test/1', 'https://a.test/2', 'https://c.test/1', 'https://b.test/2', 'https://a.test/3'];
    assert.deepEqual(
      [...recurringHostShares(list)],
      [
        ['a.test', 0.6],
        ['b.test', 0.4],
      ],
    );
    // No host more than once: every host counts, as hostShares() counts it.
    assert.deepEqual(
      [...recurringHostShares(['https://a.test/1', 'https://b.test/1'])],
      [...hostShares(['https://a.test/1', 'https://b.test/1'])],
    );
    assert.equal(recurringHostShares([]).size, 0);
  });

  it('the sites a list comes back to most, at least so often', () => {
    const hosts = ['b.test', 'a.test', null, 'c.test', 'b.test', 'a.test', 'b.test', 'a.test', 'c.test', 'd.test'];
    assert.deepEqual(focusedHosts(hosts, 3, 2), ['a.test', 'b.test'], 'by how often, then by name');
    assert.deepEqual(focusedHosts(hosts, 3, 1), ['a.test']);
    assert.deepEqual(focusedHosts(hosts, 2, 5), ['a.test', 'b.test', 'c.test']);
    assert.deepEqual(focusedHosts(hosts, 4, 2), []);
    assert.deepEqual(focusedHosts([], 1, 2), []);
  });

  it('the site holding far more of a set of pages than chance would, by the bound on its chance', () => {
    // 100 pages of a million: a site of 3,000 pages holds 0.3 of them by chance, one of 1,000 pages 0.1.
    const set = (counts: Record<string, number>) => {
      const hosts: (string | null)[] = Object.entries(counts).flatMap(([host, n]) => Array<string | null>(n).fill(host));
      while (hosts.length < 100) hosts.push(null);
      return hosts;
    };
    const size = (host: string) => (host === 'handbook.test' ? 3000 : 1000);
    const surprise = (c: number, e: number) => c * Math.log(c / e) - c + e;
    assert.ok(surprise(26, 0.3) > 30 && surprise(7, 0.1) < 30);
    assert.equal(surprisingHost(set({ 'handbook.test': 26, 'w1.test': 7 }), size, 1e6, 3, 30), 'handbook.test');
    assert.equal(
      surprisingHost(set({ 'handbook.test': 2, 'w1.test': 7 }), size, 1e6, 3, 30),
      null,
      'seven pages on a site are chance enough',
    );
    assert.equal(surprisingHost(set({ 'w1.test': 7 }), size, 1e6, 3, 14), 'w1.test', 'with a bound of 14, seven are beyond chance');
    // The most surprising, not the most pages: 32 of 1,000 pages beat 35 of 3,000.
    assert.equal(surprisingHost(set({ 'handbook.test': 35, 'w1.test': 32 }), size, 1e6, 3, 30), 'w1.test');
    assert.equal(surprisingHost(set({ 'b.test': 20, 'a.test': 20 }), size, 1e6, 3, 30), 'a.test', 'by name among equals');
    assert.equal(surprisingHost(set({ 'w1.test': 2 }), size, 1e6, 3, 0), null, 'fewer than atLeast pages are never enough');
    // A site that is most of the index holds most of any set by chance.
    assert.equal(surprisingHost(set({ 'handbook.test': 90 }), size, 3100, 3, 30), null);
    assert.equal(surprisingHost([], size, 1e6, 3, 30), null);
    // Holding fewer than chance would is no surprise: 216 of 17,840 pages on a site of 3,302 of
    // 100,000 (589 by chance) was once taken for one, the other tail's bound being 156 there. Here
    // 5 of 100 pages on a site of 90 % of the index (90 by chance), 70 by that bound.
    assert.equal(
      surprisingHost(set({ 'handbook.test': 5 }), (h) => (h === 'handbook.test' ? 90_000 : 10), 100_000, 3, 30),
      null,
    );
    assert.equal(surpriseOf(216, 589), 0);
    assert.equal(surpriseOf(5, 5), 0);
    assert.equal(surpriseOf(3, 0), 0, 'a site of no pages holds none');
    assert.equal(surpriseOf(26, 0.3).toFixed(1), '90.3');
  });

  it('how much a list comes back to a site, by the logarithm of its pages there', () => {
    assert.equal(siteFocus(0, 60), 0);
    assert.equal(siteFocus(60, 60), 1);
    assert.equal(siteFocus(90, 60), 1, 'never more than all');
    const focus = [1, 2, 5, 25].map((n) => siteFocus(n, 60));
    assert.deepEqual(
      focus.map((f) => f.toFixed(3)),
      ['0.169', '0.267', '0.436', '0.793'],
    );
    // Each page more counts for less: a second page of a site among the best says more than a sixth.
    const more = (n: number) => siteFocus(n + 1, 60) - siteFocus(n, 60);
    assert.ok(more(1) > more(5) && more(5) > more(25) && more(25) > 0);
  });

  it("a site holding far more of a query's best than chance is measured against those on sites that recur", () => {
    // sampleFocus() with 0167's bound of 30, a host's pages among the sample given by name.
    const focusOf = (counts: Record<string, number>, sample: number, size: (host: string) => number, total: number) =>
      sampleFocus(new Map(Object.entries(counts)), sample, size, total, 30);
    // A million pages: a handbook of 3,300 holds 26 of the 60 best (0.2 by chance), a site of
    // 1,000 pages holds 2 of them, and 32 are each alone on a site of 1,000.
    const alone32 = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`w${i + 2}.test`, 1]));
    const focusOn = focusOf({ 'handbook.test': 26, 'w1.test': 2, ...alone32 }, 60, (h) => (h === 'handbook.test' ? 3300 : 1000), 1e6);
    assert.equal(siteFocus(26, 60).toFixed(3), '0.802');
    assert.equal(focusOn('handbook.test', 26), siteFocus(26, 28), 'against the 28 on sites that recur');
    assert.ok(focusOn('handbook.test', 26) > 0.97, 'from 0.802 against all 60');
    assert.equal(focusOn('handbook.test', 27), siteFocus(27, 28), 'a page of it from outside the sample counts itself');
    // Two pages of a site of 1,000 are chance enough (a surprise of 5), one page is one page, and a
    // site outside the sample counts the candidate alone: each as siteFocus() has it.
    assert.equal(focusOn('w1.test', 2), siteFocus(2, 60));
    assert.equal(focusOn('w2.test', 1), siteFocus(1, 60));
    assert.equal(focusOn('elsewhere.test', 1), siteFocus(1, 60));
    // On the corpus alone the handbook is two thirds of 5,058 pages: 40 of the 60 best are chance.
    // A site of 60 pages holding the other 20 holds them far beyond chance (0.7 by chance), and is
    // measured against the pages on sites that recur: all 60 of them.
    const alone = focusOf({ 'handbook.test': 40, 'docs.test': 20 }, 60, (h) => (h === 'handbook.test' ? 3300 : 60), 5058);
    assert.ok(surpriseOf(20, (60 * 60) / 5058) > 30);
    assert.equal(alone('handbook.test', 40), siteFocus(40, 60));
    assert.equal(alone('docs.test', 20), siteFocus(20, 60));
    // No site recurs, and one page is never surprise enough: every site as siteFocus() has it.
    const scattered = focusOf({ 'a.test': 1, 'b.test': 1 }, 2, () => 1, 1e6);
    assert.equal(scattered('a.test', 1), siteFocus(1, 2));
  });
});
