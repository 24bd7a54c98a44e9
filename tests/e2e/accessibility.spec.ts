import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createKey, newUser, signUp, teamIdOf } from '../helpers/portal.ts';

/**
 * Every page passes axe-core's WCAG 2 A and AA rules with nothing serious or critical, in light and
 * in dark: labels, names, contrast, landmarks, focusable controls. Lesser findings are printed so
 * that they are seen, without failing the run.
 */
async function serious(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found: string[] = [];
  for (const v of result.violations) {
    const line = `${new URL(page.url()).pathname}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes
      .slice(0, 3)
      .map((n) => n.target.join(' '))
      .join(', ')}`;
    if (v.impact === 'serious' || v.impact === 'critical') found.push(line);
    else console.log(`[axe] ${line}`);
  }
  return found;
}

for (const scheme of ['light', 'dark'] as const) {
  test(`no serious accessibility problem on any page (${scheme})`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme: scheme });
    const problems: string[] = [];
    const check = async (path: string) => {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      problems.push(...(await serious(page)));
    };
    for (const path of ['/signin', '/signup']) await check(path);
    await signUp(page, newUser(`axe-${scheme}`));
    const teamId = teamIdOf(page);
    await createKey(page, teamId, 'axe key');
    for (const tab of ['keys', 'members', 'search', 'audit', 'settings', 'browsers', 'recordings', 'profiles'])
      await check(`/teams/${teamId}/${tab}`);
    for (const path of ['/account', '/teams/new', `/teams/${teamId}/search?q=kettle`]) await check(path);

    // The live view, with a browser running in it.
    await page.goto(`/teams/${teamId}/browsers`);
    await page.getByLabel('Name').fill('Axe browser');
    await page.getByRole('button', { name: 'Start browser' }).click();
    await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
    await page.waitForLoadState('networkidle');
    problems.push(...(await serious(page)));
    await page.getByRole('button', { name: 'Stop Axe browser' }).click();
    await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));
    expect(problems).toEqual([]);
  });
}
