import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import WebSocket from 'ws';
import { closeStart, debuggerUrl, openStart } from '../helpers/browser.ts';
import { createKey, createTeam, newUser, signUp } from '../helpers/portal.ts';
import { E2E_SERVICE_URL } from '../helpers/portal-env.ts';

/**
 * The team's ended browsers and recordings name each browser as the team knows it (issue #29): one
 * the portal started by the name its starter gave it, one a script started by its page; and each
 * once, though the service lists the portal's browsers among the key's too (decision 0112).
 */

/** A script's session straight at the service: /start, one page at `url` (titled `title`, if it has one), then the script lets go. */
async function scriptSession(token: string, url: string, title?: string): Promise<string> {
  const start = await openStart(E2E_SERVICE_URL.replace(/^http/, 'ws'), token);
  const { id, headers } = start;
  const cdp = new WebSocket(await debuggerUrl(E2E_SERVICE_URL, headers), { headers });
  await new Promise((resolve) => cdp.once('open', resolve));
  const created = new Promise((resolve) => cdp.on('message', (m) => JSON.parse(m.toString()).id === 1 && resolve(null)));
  cdp.send(JSON.stringify({ id: 1, method: 'Target.createTarget', params: { url } }));
  await created;
  // The service keeps the page a browser had when it ended: wait until its list shows it.
  await expect
    .poll(
      async () => {
        const res = await fetch(`${E2E_SERVICE_URL}/v0/browsers?status=live`, { headers: { authorization: `Bearer ${token}` } });
        const { browsers } = (await res.json()) as { browsers: { id: string; page: { url: string; title: string } | null }[] };
        const shown = browsers.find((b) => b.id === id)?.page;
        return Boolean(shown?.url.startsWith('data:') && (title === undefined || shown.title === title));
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  cdp.close();
  await closeStart(E2E_SERVICE_URL, start);
  return id;
}

/** The page at both sizes people use, kept with the test's results to be looked at. */
async function screenshots(page: Page, testInfo: TestInfo, name: string, part?: Locator): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    // A wide table scrolls inside its own card; the page itself never sideways.
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      `${name} at ${width} px`,
    ).toBeLessThanOrEqual(0);
    const path = testInfo.outputPath(`${name}-${width}x${height}.png`);
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach(`${name} at ${width}x${height}`, { path, contentType: 'image/png' });
    if (part) await part.screenshot({ path: testInfo.outputPath(`${name}-part-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("ended browsers and recordings: the portal's by the name it was given, a script's by its page, each once", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await signUp(page, newUser('historian'));
  const teamId = await createTeam(page, 'History crew');
  const { token } = await createKey(page, teamId, 'ci key');
  await page.goto(`/teams/${teamId}/settings`);
  await page.getByRole('switch', { name: "Record every browser started with this team's keys" }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Recording is on for 1 key' })).toBeVisible();

  // One browser started from the dashboard and given a name, then stopped there.
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill('Checkout run');
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByRole('listitem', { name: 'Checkout run' }).getByRole('button', { name: 'Stop Checkout run' }).click();
  await expect(page.getByText('No browsers running')).toBeVisible();

  // Two a script started with the same key and let go of: a titled page, and an untitled one with a long address.
  const scriptId = await scriptSession(token, 'data:text/html,<title>Nightly report</title><h1>Nightly report</h1>', 'Nightly report');
  const untitledId = await scriptSession(token, `data:text/html,<p>${'generated-'.repeat(300)}</p>`);

  // Ended in the last day: all three, each once, the portal's under its name and who started it, the scripts' by their pages.
  const ended = page.getByRole('table', { name: 'Ended browsers' });
  await expect(ended.getByRole('row')).toHaveCount(4, { timeout: 20_000 }); // the heading and the three browsers
  const portalRow = ended.getByRole('row').filter({ hasText: 'Checkout run' });
  await expect(portalRow).toHaveCount(1);
  await expect(portalRow).toContainText('Stopped');
  await expect(portalRow).not.toContainText('A script');
  const scriptRow = ended.locator(`tr[data-browser-id="${scriptId}"]`);
  await expect(scriptRow).toHaveCount(1);
  await expect(scriptRow).toContainText('Nightly report');
  await expect(scriptRow).toContainText('A script with ci key');
  await expect(scriptRow.getByRole('cell').last()).toHaveText('Stopped');
  await expect(ended.locator(`tr[data-browser-id="${untitledId}"]`)).toContainText('data:text/html,<p>generated-generated-');
  // Read again, it stays so; and the long address does not widen the table past its card.
  await page.reload();
  await expect(ended.getByRole('row')).toHaveCount(4);
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await ended.evaluate((t) => t.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
  await screenshots(page, testInfo, 'dashboard', page.getByRole('region', { name: 'Ended in the last day' }));
  const axe = await new AxeBuilder({ page }).include('[aria-labelledby="history-title"]').withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  // The recordings list: the portal's browser by its name, the script's by its page.
  await page.goto(`/teams/${teamId}/recordings`);
  const sessions = page.getByRole('table', { name: 'Recorded sessions' });
  await expect(sessions.getByRole('row')).toHaveCount(4);
  await expect(sessions.getByRole('link', { name: 'Checkout run' })).toHaveCount(1);
  await expect(sessions.locator(`tr[data-browser-id="${scriptId}"]`).getByRole('link')).toHaveText('Nightly report');
  await expect(page.getByRole('checkbox', { name: /^Compare Checkout run, started / })).toBeVisible();
  await screenshots(page, testInfo, 'recordings');
});
