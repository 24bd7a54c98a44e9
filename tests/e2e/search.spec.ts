import { expect, test, type Page } from '@playwright/test';
import { E2E_SERVICE_URL } from '../helpers/portal-env.ts';
import { createKey, newUser, reloadWithScriptsHeld, signUp, teamIdOf, untilHydrated, userSession } from '../helpers/portal.ts';
import {
  cliKey,
  copyIndex,
  indexCorpusSlice,
  MAIN_INDEX,
  revokeAtService,
  serviceSearchCount,
  startFlakyPair,
  type Pair,
} from '../helpers/search-e2e.ts';

/**
 * The hosted search page against the real service with a slice of the corpus indexed: results
 * with highlighted snippets, the address as the page's state, the portal's cache, the key's
 * limit, an upstream that fails, a key the service refuses, recent searches, the keyboard.
 */
test.describe.configure({ mode: 'serial' });

// The first test sees the index as the e2e server starts it, empty; every later one the corpus slice.
let indexed = false;
test.beforeEach(async ({ page }, info) => {
  if (!indexed && !info.title.startsWith('an empty index')) {
    info.setTimeout(info.timeout + 120_000);
    await indexCorpusSlice();
    indexed = true;
  }
  // No hydration mismatch or other error in the page's console (failed requests are the tests' own doing).
  consoleErrors.length = 0;
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) consoleErrors.push(m.text());
  });
});
const consoleErrors: string[] = [];
test.afterEach(() => expect(consoleErrors).toEqual([]));

test('an empty index says so, and what to do about it', async ({ page, request }) => {
  const health = (await (await request.get(`${E2E_SERVICE_URL}/healthz`)).json()) as { search: { pages: number } };
  test.skip(health.search.pages > 0, 'the index was filled before this spec ran');
  await signUp(page, newUser('empty'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Empty key');
  await page.goto(`/teams/${teamId}/search?q=asyncio&lang=en`);
  const state = page.getByTestId('search-state');
  await expect(state).toHaveAttribute('data-state', 'index-empty');
  await expect(state).toContainText('npm run index -- SOURCE');
});

async function searchFor(page: Page, query: string) {
  const box = page.getByRole('searchbox', { name: 'Search' });
  await box.fill(query);
  await box.press('Enter');
}

/** Every request the page makes to the portal's search route. */
function countSearchCalls(page: Page): { n: number } {
  const c = { n: 0 };
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/teams\/[^/]+\/search$/.test(new URL(r.url()).pathname)) c.n++;
  });
  return c;
}

test('a search shows ranked results with highlighted snippets; the address round-trips, back and forward work', async ({ page }) => {
  await signUp(page, newUser('searcher'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Search key');
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/search$`));
  const calls = countSearchCalls(page);

  // Typing sends nothing; Enter does, once.
  const box = page.getByRole('searchbox', { name: 'Search' });
  await box.pressSequentially('asyncio gather', { delay: 20 });
  await page.waitForTimeout(400);
  expect(calls.n).toBe(0);
  await box.press('Enter');
  await expect(page).toHaveURL(/\?q=asyncio\+gather&lang=en$/);
  const results = page.getByTestId('result');
  await expect(results.first()).toBeVisible();
  expect(calls.n).toBe(1);
  expect(await results.count()).toBeGreaterThanOrEqual(3);
  await expect(results.first().getByRole('link')).toHaveAttribute('href', /^https:\/\/docs\.python\.org\/3\/library\/asyncio/);
  await expect(results.first()).toContainText('docs.python.org › 3 › library ›');
  const marks = await page.locator('.result-snippet mark').allTextContents();
  expect(marks.length).toBeGreaterThan(0);
  expect(marks.every((m) => /^(asyncio|gather)/i.test(m))).toBe(true);
  await expect(page.getByTestId('quota-remaining')).toHaveText('39');
  await expect(page.getByTestId('quota')).toContainText('of 40 searches left this minute · all back in');
  expect(await page.getByTestId('quota-reset').textContent()).toMatch(/^([1-5]?\d s|1 min 00 s)$/);

  // The search page opened afresh without a query: the quota is still shown, not "after your first search".
  const fresh = await page.context().newPage();
  await fresh.goto(page.url().replace(/\?.*$/, ''));
  await expect(fresh.getByTestId('quota-remaining')).toHaveText('39');
  await fresh.close();

  // A shared link: its first results are in the server's HTML, highlighted.
  const html = await (await page.request.get(page.url())).text();
  expect(html).toContain('data-testid="result"');
  expect(html).toMatch(/<mark>(asyncio|gather)/i);

  // A second search in another language (the menu applies to the next search), then back and forward through both.
  await page.getByLabel('Language').selectOption('de');
  await expect(page).toHaveURL(/\?q=asyncio\+gather&lang=en$/);
  await searchFor(page, 'json  dumps ');
  await expect(page).toHaveURL(/\?q=json\+dumps&lang=de$/);
  await expect(page.locator('.result-snippet mark').first()).toHaveText(/^(json|dumps)/i);
  await page.goBack();
  await expect(page).toHaveURL(/\?q=asyncio\+gather&lang=en$/);
  await expect(box).toHaveValue('asyncio gather');
  await expect(page.getByLabel('Language')).toHaveValue('en');
  await expect(results.first().getByRole('link')).toHaveAttribute('href', /asyncio/);
  await page.goForward();
  await expect(box).toHaveValue('json dumps');
  await expect(page.getByLabel('Language')).toHaveValue('de');
  await expect(results.first()).toBeVisible();

  // Opening the address afresh shows the same search.
  const url = page.url();
  const other = await page.context().newPage();
  await other.goto(url);
  await expect(other.getByRole('searchbox', { name: 'Search' })).toHaveValue('json dumps');
  await expect(other.getByTestId('result').first()).toBeVisible();
  await other.close();
});

test('a repeated search is served from the cache: the service counts no new request and no quota is used', async ({ page }) => {
  await signUp(page, newUser('cache'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Cache key');
  await page.goto(`/teams/${teamId}/search`);
  const before = await serviceSearchCount(E2E_SERVICE_URL);
  await searchFor(page, 'event loop policy');
  await expect(page.getByTestId('result').first()).toBeVisible();
  await expect(page.getByTestId('from-cache')).toHaveCount(0);
  expect(await serviceSearchCount(E2E_SERVICE_URL)).toBe(before + 1);
  await expect(page.getByTestId('quota-remaining')).toHaveText('39');

  // The same search again (with other spacing): answered by the portal, marked so.
  await searchFor(page, '  event   loop policy');
  await expect(page.getByTestId('from-cache')).toBeVisible();
  // A shared link opened in a new tab: rendered on the server from the cache too.
  const other = await page.context().newPage();
  await other.goto(`/teams/${teamId}/search?q=event+loop+policy&lang=en`);
  await expect(other.getByTestId('from-cache')).toBeVisible();
  await expect(other.getByTestId('result').first()).toBeVisible();
  await other.close();
  expect(await serviceSearchCount(E2E_SERVICE_URL)).toBe(before + 1);
  await expect(page.getByTestId('quota-remaining')).toHaveText('39');
});

test('keyboard: / focuses the box, arrows and j/k move through results, Enter opens one', async ({ page }) => {
  await page.route('https://docs.python.org/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<title>Opened</title><h1>Opened result</h1>' }),
  );
  await signUp(page, newUser('keys'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Keyboard key');
  await page.goto(`/teams/${teamId}/search?q=asyncio+task&lang=en`);
  const links = page.getByTestId('result').getByRole('link');
  await expect(links.first()).toBeVisible();
  await page.locator('h2').first().click();
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(links.nth(0)).toBeFocused();
  await page.keyboard.press('j');
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(links.nth(2)).toBeFocused();
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowUp');
  await expect(links.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('searchbox', { name: 'Search' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  const href = await links.nth(0).getAttribute('href');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(href ?? 'missing');
  await expect(page.getByRole('heading', { name: 'Opened result' })).toBeVisible();
});

test('empty results, a query that is too long, and recent searches that the user can clear', async ({ page }) => {
  await signUp(page, newUser('recent'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Recent key');
  await page.goto(`/teams/${teamId}/search`);
  const calls = countSearchCalls(page);
  await page.getByRole('searchbox', { name: 'Search' }).fill('x'.repeat(349));
  await expect(page.getByText('At most 348 characters (349 now).')).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
  await expect(page.getByText(/The query must be at most 348 characters/)).toBeVisible();
  expect(calls.n).toBe(0);

  await searchFor(page, 'qwertyuiopzxcv');
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'empty');
  await expect(page.getByText('No pages match “qwertyuiopzxcv”')).toBeVisible();
  // One word in English on every site: nothing to try but other words, said in words.
  await expect(page.getByText('Check the spelling, or try more general words')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Searches to try' })).toHaveCount(0);
  await searchFor(page, 'json decoder');
  await expect(page.getByTestId('result').first()).toBeVisible();

  await page.getByRole('link', { name: 'Search', exact: true }).click();
  const recent = page.getByRole('list', { name: 'Recent searches' });
  await expect(recent.getByRole('button')).toHaveText(['json decoder', 'qwertyuiopzxcv']);
  await recent.getByRole('button', { name: 'json decoder' }).click();
  await expect(page).toHaveURL(/\?q=json\+decoder&lang=en$/);
  await expect(page.getByTestId('results-meta')).toContainText('for “json decoder”');
  await page.goto(`/teams/${teamId}/search`);
  await page.getByRole('button', { name: 'Clear recent searches' }).click();
  await expect(page.getByRole('list', { name: 'Recent searches' })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('list', { name: 'Recent searches' })).toHaveCount(0);

  // Three words in German that find nothing: the service checked the searches to try, and only
  // those that find something are shown. English finds nothing either (the words are the same, and
  // the language only biases), so it is not offered.
  const before = await serviceSearchCount(E2E_SERVICE_URL);
  await page.goto(`/teams/${teamId}/search?q=qwzx+coroutine+yyqv&lang=de`);
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'empty');
  const tries = page.getByRole('list', { name: 'Searches to try' });
  await expect(tries).toContainText('one word: “coroutine”');
  await expect(tries).not.toContainText('in English');
  expect(await serviceSearchCount(E2E_SERVICE_URL), 'the tries cost no search of their own').toBe(before + 1);
  const hrefs = await tries.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  expect(hrefs.length).toBeGreaterThan(0);
  for (const href of hrefs) {
    await page.goto(href);
    await expect(page.getByTestId('result').first()).toBeVisible();
  }
});

test('changing the language runs no search by itself: it applies to the next one', async ({ page }) => {
  await signUp(page, newUser('language'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Language key');
  await page.goto(`/teams/${teamId}/search`);
  await searchFor(page, 'json decoder');
  await expect(page.getByTestId('result').first()).toBeVisible();
  const calls = countSearchCalls(page);
  await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
  // Whatever the menu would run goes out at once; give it the time of a search to show itself.
  await page.waitForTimeout(1_000);
  expect(calls.n, 'no search was sent').toBe(0);
  await expect(page).toHaveURL(/\?q=json\+decoder&lang=en$/);
  await expect(page.getByTestId('results-meta')).toContainText('for “json decoder”');
  // The next search is in the language chosen.
  await searchFor(page, 'json encoder');
  await expect(page).toHaveURL(/\?q=json\+encoder&lang=de$/);
  await expect(page.getByTestId('results-meta')).toContainText('for “json encoder”');
  expect(calls.n).toBe(1);
  // Only the two searches made are recent (each with its language), not the first one again in German.
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  const recent = page.getByRole('list', { name: 'Recent searches' });
  await expect(recent.getByRole('button')).toHaveText([/^json encoder/, /^json decoder/]);
  // Back to the first search: the menu follows the address.
  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL(/\?q=json\+decoder&lang=en$/);
  await expect(page.getByRole('combobox', { name: 'Language' })).toHaveValue('en');
});

/** A new user's search page with a key, loaded again with its scripts held back (the server's HTML
 * alone, as before hydration); returns what lets them through. */
async function searchPageBeforeHydration(page: Page, label: string): Promise<() => void> {
  await signUp(page, newUser(label));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, `${label} key`);
  await page.goto(`/teams/${teamId}/search`);
  return reloadWithScriptsHeld(page);
}

test('a language chosen before the page has loaded its scripts goes with the next search', async ({ page }) => {
  const release = await searchPageBeforeHydration(page, 'early-language');
  const menu = page.getByRole('combobox', { name: 'Language' });
  await menu.selectOption('de');
  release();
  await untilHydrated(menu);
  await page.unrouteAll({ behavior: 'wait' });
  await searchFor(page, 'json encoder');
  await expect(page).toHaveURL(/\?q=json\+encoder&lang=de$/);
  await expect(menu).toHaveValue('de');
});

test('words typed before the page has loaded its scripts are what the next search looks for', async ({ page }) => {
  const release = await searchPageBeforeHydration(page, 'early-words');
  const box = page.getByRole('searchbox', { name: 'Search' });
  await box.fill('json encoder');
  release();
  await untilHydrated(box);
  await page.unrouteAll({ behavior: 'wait' });
  await box.press('Enter');
  await expect(page).toHaveURL(/\?q=json\+encoder&lang=en$/);
  await expect(page.getByRole('list', { name: 'Search results' })).toBeVisible();
});

test('a site icon that cannot load leaves no gap before the address', async ({ page }) => {
  await signUp(page, newUser('icons'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Icon key');
  const address = `/teams/${teamId}/search?q=asyncio&lang=en`;
  const lines = () =>
    page.getByTestId('result').evaluateAll((items) =>
      items.map((li) => {
        const line = li.querySelector('.result-url') as HTMLElement;
        const icon = line.querySelector('img');
        const node = [...line.childNodes].find((n) => n.nodeType === Node.TEXT_NODE);
        const text = document.createRange();
        if (node) text.selectNode(node);
        return {
          icon: Boolean(icon),
          loaded: icon ? icon.complete && icon.naturalWidth > 0 : null,
          gap: node ? Math.round(text.getBoundingClientRect().left - line.getBoundingClientRect().left) : -1,
        };
      }),
    );
  // The results' icons are elsewhere on the web: first none of them can load.
  const external = (url: URL) => url.host !== new URL(page.url()).host;
  await page.route(external, (route) => route.abort());
  await page.goto(address);
  await expect(page.getByTestId('result')).toHaveCount(10);
  await expect(page.locator('.result-icon')).toHaveCount(0);
  for (const line of await lines()) expect(line).toEqual({ icon: false, loaded: null, gap: 0 });
  // The same icons when they load take their room, which shows the check above could see a gap.
  await page.unroute(external);
  await page.route(external, (route) =>
    route.fulfill({
      contentType: 'image/svg+xml',
      body: '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>',
    }),
  );
  await page.reload();
  await expect(page.getByTestId('result')).toHaveCount(10);
  await expect(page.locator('.result-icon').first()).toBeVisible();
  const loaded = (await lines()).filter((l) => l.icon);
  expect(loaded.length).toBeGreaterThan(0);
  for (const line of loaded) {
    expect(line.loaded).toBe(true);
    expect(line.gap).toBeGreaterThanOrEqual(16);
  }
});

test('the search page does not scroll sideways on a phone', async ({ page }) => {
  await signUp(page, newUser('phone'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Phone key');
  await page.setViewportSize({ width: 390, height: 844 });
  for (const address of [`/teams/${teamId}/search`, `/teams/${teamId}/search?q=asyncio&lang=en`]) {
    await page.goto(address);
    await expect(page.getByRole('searchbox', { name: 'Search' })).toBeVisible();
    if (address.includes('q=')) await expect(page.getByTestId('result').first()).toBeVisible();
    const wider = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${Math.round(e.getBoundingClientRect().right)}`),
    );
    expect(wider, address).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  }
});

test('a mistyped word is corrected, with the words as typed one click away; nonsense finds nothing and says what to try', async ({
  page,
}) => {
  await signUp(page, newUser('typist'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Typo key');
  // The sites' icons are on the web, out of reach here: a stand-in for each, since one that cannot load is hidden.
  await page.route(/^https:\/\/docs\.python\.org\//, (route) =>
    route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>' }),
  );
  await page.goto(`/teams/${teamId}/search`);
  await searchFor(page, 'asyncio gahter');
  const corrected = page.getByTestId('corrected');
  await expect(corrected).toContainText('Showing results for asyncio gather. Search instead for “asyncio gahter”.');
  await expect(page.getByTestId('results-meta'), 'the count is for the words searched').toContainText('for “asyncio gather”');
  await expect(page.getByTestId('result').first()).toBeVisible();
  // Where each page sits in its manual, and its site's icon, as the index recorded them.
  await expect(page.getByTestId('result-section').first()).toContainText('Python');
  await expect(page.getByTestId('result-section').first()).toContainText(' › ');
  await expect(page.locator('.result-icon').first()).toHaveAttribute('src', /^https:\/\/docs\.python\.org\//);
  await corrected.getByRole('link', { name: '“asyncio gahter”' }).click();
  await expect(page).toHaveURL(/\?q=asyncio\+gahter&lang=en&exact=1$/);
  await expect(page.getByTestId('results-meta')).toContainText('for “asyncio gahter”');
  await expect(page.getByTestId('corrected')).toHaveCount(0);
  await page.goBack();
  await expect(page.getByTestId('corrected')).toBeVisible();

  // A result in another language than the query's says which.
  await page.goto(`/teams/${teamId}/search?q=asyncio&lang=fr`);
  await expect(page.getByTestId('result').first().locator('.result-language')).toHaveText('English');

  // Nonsense finds nothing, and neither does any search the service tried for it (fewer words,
  // one word, English): none is offered, and the page says what to try in words (decision 0114).
  await page.goto(`/teams/${teamId}/search?q=${encodeURIComponent('qwzxplkjh frobnicator zzyzx')}&lang=de`);
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'empty');
  await expect(page.getByTestId('search-state')).toContainText('Check the spelling, or try more general words');
  await expect(page.getByRole('list', { name: 'Searches to try' })).toHaveCount(0);
  // Searched as typed, an empty answer offers the search with mistakes corrected, which finds something.
  await page.goto(`/teams/${teamId}/search?q=${encodeURIComponent('asyncio gahter zzyzx qwzxplkjh')}&lang=en&exact=1`);
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'empty');
  await page
    .getByRole('list', { name: 'Searches to try' })
    .getByRole('link', { name: /, corrected$/ })
    .click();
  await expect(page).toHaveURL(/lang=en$/);
  await expect(page.getByTestId('result').first()).toBeVisible();
});

test('results come in pages: the next and the previous one, each with its own address, never overlapping', async ({ page }) => {
  await signUp(page, newUser('pager'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Pager key');
  await page.goto(`/teams/${teamId}/search`);
  await searchFor(page, 'asyncio');
  const results = page.getByTestId('result');
  await expect(results).toHaveCount(10);
  await expect(page.getByTestId('results-meta')).toContainText('Top 10 results for “asyncio”');
  const firstPage = await results.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  const pager = page.getByTestId('pager');
  await expect(pager.getByRole('link', { name: '← Previous' })).toHaveCount(0);
  await pager.getByRole('link', { name: 'Next page →' }).click();
  await expect(page).toHaveURL(/\?q=asyncio&lang=en&start=10$/);
  await expect(page.getByTestId('results-meta')).toContainText(/Results 11–\d+ for “asyncio”/);
  await expect(page.getByRole('list', { name: 'Search results' })).toHaveAttribute('start', '11');
  await expect(pager).toContainText('Page 2');
  const secondPage = await results.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(secondPage.length).toBeGreaterThan(0);
  expect(secondPage.filter((u) => firstPage.includes(u))).toEqual([]);
  // The address is the page: opened afresh, rendered on the server with the same results.
  const html = await (await page.request.get(page.url())).text();
  expect(html).toContain(`href="${secondPage[0]}"`);
  expect(html).not.toContain(`href="${firstPage[0]}"`);
  // Previous, and the browser's back, return to the first page.
  await pager.getByRole('link', { name: '← Previous' }).click();
  await expect(page).toHaveURL(/\?q=asyncio&lang=en$/);
  await expect(results.first().getByRole('link')).toHaveAttribute('href', firstPage[0] ?? 'missing');
  await page.goBack();
  await expect(page.getByTestId('results-meta')).toContainText('Results 11–');
  // On a phone, results and pager fit the screen (a result's one-line address once pushed it wider).
  await page.setViewportSize({ width: 360, height: 740 });
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(sideways).toBeLessThanOrEqual(0);
  const box = await pager.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 720 });
  // Past the last page: said in words, with the way back.
  await page.goto(`/teams/${teamId}/search?q=asyncio&lang=en&start=190`);
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'no-more');
  await page.getByRole('link', { name: 'Back to the first page' }).click();
  await expect(page).toHaveURL(/\?q=asyncio&lang=en$/);
  await expect(results).toHaveCount(10);
});

test('site: in the box keeps to a site and -site: leaves one out; the page says so, and every site is one click away', async ({ page }) => {
  await signUp(page, newUser('sites'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'Sites key');
  await page.goto(`/teams/${teamId}/search`);
  const calls = countSearchCalls(page);
  await searchFor(page, 'json site:Docs.Python.org');
  await expect(page).toHaveURL(/\?q=json\+site%3ADocs.Python.org&lang=en$/);
  await expect(page.getByTestId('search-scope')).toHaveText('Only pages on docs.python.org and the sites under them. Search every site');
  const links = page.getByTestId('result').getByRole('link');
  await expect(links.first()).toBeVisible();
  expect(
    (await links.evaluateAll((l) => l.map((a) => a.getAttribute('href')))).every((u) => u?.startsWith('https://docs.python.org/')),
  ).toBe(true);
  // Only the words are highlighted, not the site.
  expect(await page.locator('.result-snippet mark').allTextContents()).not.toContain('docs');

  // Leaving out the only site there is: nothing, and what to try.
  await searchFor(page, 'json -site:python.org');
  await expect(page.getByTestId('search-state')).toHaveAttribute('data-state', 'empty');
  await expect(page.getByTestId('search-scope')).toContainText('No pages on python.org.');
  await page.getByRole('list', { name: 'Searches to try' }).getByRole('link', { name: '“json” on every site' }).click();
  await expect(page).toHaveURL(/\?q=json&lang=en$/);
  await expect(page.getByTestId('search-scope')).toHaveCount(0);
  await expect(links.first()).toBeVisible();

  await searchFor(page, 'json site:example.org');
  await expect(page.getByText('No pages match “json” on example.org')).toBeVisible();
  await page.getByTestId('search-scope').getByRole('link', { name: 'Search every site' }).click();
  await expect(page).toHaveURL(/\?q=json&lang=en$/);

  // A site that is no host name is refused in the page, costing no search.
  const before = calls.n;
  await searchFor(page, 'json site:docs.python.org:443');
  await expect(page.getByText('site: "docs.python.org:443" must be a host name without a port.')).toBeVisible();
  await searchFor(page, 'site:docs.python.org');
  await expect(page.getByText('Type what you are looking for as well as the site.')).toBeVisible();
  expect(calls.n).toBe(before);

  // Recent searches keep the site (the last "json" came from the page's own cache, no new search).
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Recent searches' }).getByRole('button')).toHaveText([
    'json site:example.org',
    'json',
    'json -site:python.org',
    'json site:docs.python.org',
  ]);
});

test('a key the service refuses, and a team without a key, say so and link to the keys page', async ({ page }) => {
  await signUp(page, newUser('revoked'));
  const teamId = teamIdOf(page);
  await page.goto(`/teams/${teamId}/search`);
  await expect(page.getByText('This team has no API key to search with')).toBeVisible();
  const { token } = await createKey(page, teamId, 'Doomed key');
  revokeAtService(token);
  await page.goto(`/teams/${teamId}/search?q=asyncio&lang=en`);
  const state = page.getByTestId('search-state');
  await expect(state).toHaveAttribute('data-state', 'key-refused');
  await expect(state).toContainText("The search service refused this team's API key");
  await expect(page.locator('body')).not.toContainText('{"error"');
  await state.getByRole('link', { name: 'API keys page' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
});

test.describe('against a second service whose index fails, with a short rate window', () => {
  let pair: Pair;
  let pairIndexGood = false;
  test.beforeAll(async () => {
    test.setTimeout(150_000);
    pair = await startFlakyPair();
  });
  test.afterAll(async () => {
    await pair?.stop();
  });

  test('an upstream failure shows the retry state, and the page recovers when the index answers again', async ({ browser }) => {
    const { context, page } = await userSession(browser, 'flaky');
    const teamId = teamIdOf(page);
    await createKey(page, teamId, 'Flaky key');
    await page.goto(`${pair.portalUrl}/teams/${teamId}/search`);
    await searchFor(page, 'asyncio gather');
    const state = page.getByTestId('search-state');
    await expect(state).toHaveAttribute('data-state', 'retrying');
    await expect(state).toContainText('The search service did not answer. Retrying (attempt');
    copyIndex(MAIN_INDEX, pair.indexPath);
    pairIndexGood = true;
    await expect(page.getByTestId('result').first()).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('.result-snippet mark').first()).toBeVisible();
    await context.close();
  });

  test("exhausting the key's limit shows the countdown, and the page searches again by itself", async ({ browser }) => {
    test.setTimeout(90_000);
    if (!pairIndexGood) copyIndex(MAIN_INDEX, pair.indexPath);
    pairIndexGood = true;
    const { context, page } = await userSession(browser, 'limited');
    const teamId = teamIdOf(page);
    const res = await page.request.post(`${pair.portalUrl}/api/teams/${teamId}/keys`, {
      data: { mode: 'add', name: 'Small key', key: cliKey('small', 3) },
    });
    expect(res.status()).toBe(200);
    await page.goto(`${pair.portalUrl}/teams/${teamId}/search`);
    const calls = countSearchCalls(page);
    for (const q of ['asyncio', 'json', 'glossary']) {
      await searchFor(page, q);
      await expect(page.getByTestId('results-meta')).toContainText(`for “${q}”`);
    }
    await expect(page.getByTestId('quota-remaining')).toHaveText('0');
    await expect(page.getByTestId('quota')).toContainText('next search possible in');
    await searchFor(page, 'event loop');
    const state = page.getByTestId('search-state');
    await expect(state).toHaveAttribute('data-state', 'rate-limited');
    await expect(state).toContainText('The page will search again by itself then.');
    const first = Number((await page.getByTestId('retry-countdown').textContent())?.replace(/\D/g, ''));
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(7);
    expect(calls.n).toBe(4);
    await expect(page.getByTestId('results-meta')).toContainText('for “event loop”', { timeout: 15_000 });
    expect(calls.n).toBe(5);
    await context.close();
  });
});
