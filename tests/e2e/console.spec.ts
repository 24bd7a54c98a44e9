import { expect, test, type ConsoleMessage, type Page } from '@playwright/test';
import { createKey, newUser, signUp, teamIdOf } from '../helpers/portal.ts';

/**
 * Every page loads without an error in the browser's console: no failed request (a missing
 * favicon included), no React hydration mismatch (#418 and its kin), no uncaught exception. The
 * dashboard is visited while a browser runs, where its live uptime once differed between server and
 * browser.
 */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || (m.type() === 'warning' && /hydrat/i.test(m.text()))) problems.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  return problems;
}

test('no console errors or hydration warnings on any page', async ({ page }) => {
  test.setTimeout(120_000);
  const problems = watch(page);
  for (const path of ['/signin', '/signup']) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
  }
  await signUp(page, newUser('console'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'console key');
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill('Console browser');
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  const live = page.url();
  for (const tab of ['browsers', 'keys', 'members', 'search', 'audit', 'settings', 'recordings']) {
    await page.goto(`/teams/${teamId}/${tab}`);
    await page.waitForLoadState('networkidle');
    // Long enough for a second of uptime to pass: the clock that once broke hydration.
    if (tab === 'browsers') await expect(page.getByRole('listitem', { name: 'Console browser' })).toContainText(/up \d/);
  }
  for (const path of ['/', '/account', '/teams/new', `/teams/${teamId}/search?q=kettle`]) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
  }
  await page.goto(live);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  await page.getByRole('button', { name: 'Stop Console browser' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));
  expect(problems).toEqual([]);
});
