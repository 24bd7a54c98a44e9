import { expect, test, type Page } from '@playwright/test';
import { createKey, inviteLink, newUser, signUp, teamIdOf } from '../helpers/portal.ts';

/**
 * A phone 360 CSS pixels wide: no page may scroll sideways, and what the top bar and the team's
 * tabs offer stays on screen.
 */
test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

/** How far the page reaches past the screen's right edge, and the widest culprits when it does. */
async function overflow(page: Page): Promise<{ by: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const by = document.documentElement.scrollWidth - width;
    const culprits =
      by <= 0
        ? []
        : [...document.querySelectorAll<HTMLElement>('body *')]
            .filter((el) => el.getBoundingClientRect().right > width + 1)
            .map(
              (el) =>
                `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} right=${Math.round(el.getBoundingClientRect().right)}`,
            )
            .slice(0, 8);
    return { by, culprits };
  });
}

async function fits(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.waitForLoadState('networkidle');
  const o = await overflow(page);
  expect(o.by, `${path} scrolls sideways by ${o.by} px: ${o.culprits.join(', ')}`).toBeLessThanOrEqual(0);
}

test('every page fits a 360 px wide screen, and the top bar and tabs stay reachable', async ({ page, browser }) => {
  test.setTimeout(120_000);
  for (const path of ['/signin', '/signup']) await fits(page, path);
  await signUp(page, newUser('phone'));
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'phone key');
  const link = await inviteLink(page, teamId, 'Member');
  for (const tab of ['keys', 'members', 'search', 'browsers', 'audit', 'settings']) await fits(page, `/teams/${teamId}/${tab}`);
  await fits(page, `/teams/${teamId}/search?q=asyncio+gather`);
  for (const path of ['/', '/account', '/teams/new', '/no-such-page']) await fits(page, path);

  // Everything the top bar and the tab bar offer is on screen, not cut off or pushed out.
  await page.goto(`/teams/${teamId}/keys`);
  for (const name of ['Sign out']) {
    const box = (await page.getByRole('button', { name }).boundingBox())!;
    expect(box.x + box.width, name).toBeLessThanOrEqual(360);
  }
  for (const name of ['API keys', 'Members', 'Audit log', 'Settings']) {
    const box = (await page.getByRole('link', { name, exact: true }).boundingBox())!;
    expect(box.x >= 0 && box.x + box.width <= 360, `${name} is on screen`).toBe(true);
  }

  // The live view on a phone: it fits, and the remote page is touched through it.
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill('Phone browser');
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  const o = await overflow(page);
  expect(o.by, `the live page scrolls sideways: ${o.culprits.join(', ')}`).toBeLessThanOrEqual(0);
  const canvas = (await page.getByRole('img', { name: /^Screen of/ }).boundingBox())!;
  expect(canvas.width).toBeLessThanOrEqual(360);
  await page.getByRole('button', { name: 'Stop Phone browser' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));

  // An invitation opened on a phone, signed out.
  const guest = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
  await fits(await guest.newPage(), new URL(link).pathname);
  await guest.close();
});
