import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createKey, userSession } from '../helpers/portal.ts';

/**
 * The live view's layout, measured in a real browser at the sizes people use (issue #29): on a
 * laptop the page opens where it is and the remote screen and its status bar fit the window, at
 * every size, with or without "Fit to window"; a wide screen's room is used; a phone gets a remote
 * browser of its own kind (its viewport and touch); a shared link fits the frame its embed code gives.
 */
test.describe.configure({ mode: 'serial' });

/** A page that says in its title how wide its window is and whether it runs on a touch screen; a tap on it counts. */
const DEVICE_PAGE = `<!doctype html><html><head><meta name="viewport" content="width=device-width">
<style>body { margin: 0; } button { position: absolute; left: 0; top: 0; width: 100%; height: 200px; font-size: 2rem; }</style></head>
<body><button id="tap">Tap me</button><script>
  let taps = 0;
  const say = () => { document.title = 'w=' + innerWidth + ' touch=' + (navigator.maxTouchPoints > 0) + ' taps=' + taps; };
  document.getElementById('tap').addEventListener('click', () => { taps++; say(); });
  addEventListener('resize', say);
  say();
</script></body></html>`;

let site: Server;
let siteUrl = '';
test.beforeAll(async () => {
  site = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(DEVICE_PAGE);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
test.afterAll(() => new Promise<void>((r) => site.close(() => r())));

type Box = { x: number; y: number; width: number; height: number };
const box = async (part: Locator): Promise<Box> => (await part.boundingBox())!;
const inWindow = (page: Page, b: Box): boolean => {
  const { width, height } = page.viewportSize()!;
  return b.x >= 0 && b.y >= 0 && b.x + b.width <= width + 0.5 && b.y + b.height <= height + 0.5;
};
const screen = (page: Page) => page.getByRole('img', { name: /^Screen of/ });
const statusBar = (page: Page) => page.locator('.live-status');
/** The remote viewport's size as the status bar says it. */
async function remoteSize(page: Page): Promise<{ width: number; height: number }> {
  const text = (await statusBar(page).textContent()) ?? '';
  const m = /(\d+)×(\d+)/.exec(text);
  return { width: Number(m?.[1]), height: Number(m?.[2]) };
}
/** How far the page reaches past the window's right edge. */
const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The screen, its status bar and the page's head are inside the window, with nothing scrolled. */
async function expectFits(page: Page, size: string): Promise<void> {
  await expect(async () => {
    expect(await page.evaluate(() => window.scrollY), `${size}: the page is at its top`).toBe(0);
    expect(inWindow(page, await box(screen(page))), `${size}: the screen is inside the window`).toBe(true);
    expect(inWindow(page, await box(statusBar(page))), `${size}: the status bar is inside the window`).toBe(true);
    expect(await sideways(page), `${size}: nothing scrolls sideways`).toBeLessThanOrEqual(0);
  }).toPass({ timeout: 10_000 });
}

async function startBrowser(page: Page, teamId: string, name: string): Promise<string> {
  const started = await page.request.post(`/api/teams/${teamId}/browsers`, { data: { name } });
  expect(started.ok()).toBe(true);
  return `/teams/${teamId}/browsers/${((await started.json()) as { browser: { id: string } }).browser.id}`;
}

test('on a laptop the live view opens without a jump and fits the window, Fit uses the whole room at every size', async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await userSession(browser, 'laptop');
  const teamId = /\/teams\/(team_[\w-]+)/.exec(page.url())![1]!;
  await createKey(page, teamId, 'laptop key');
  const live = await startBrowser(page, teamId, 'Laptop browser');

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(live);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  // Nothing scrolls the page once it has loaded: the head and its buttons stay in sight.
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.scrollY), 'the page does not jump on load').toBe(0);
  for (const part of [page.getByRole('heading', { name: 'Laptop browser' }), page.getByRole('button', { name: 'Stop Laptop browser' })])
    expect(inWindow(page, await box(part)), `${await part.textContent()} is in sight`).toBe(true);
  await expectFits(page, '1280×800 at a fixed 1280×720');

  // Fit: the remote browser takes the size of the room between the toolbar and the status bar.
  const fit = page.getByRole('button', { name: 'Fit to window' });
  await fit.click();
  await expect(fit, 'the button keeps its name and shows it is on').toHaveAttribute('aria-pressed', 'true');
  for (const [width, height] of [
    [1280, 800],
    [1920, 1080],
    [1024, 640],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await expectFits(page, `${width}×${height} fitted`);
    // The screen's width follows the window at once (CSS), its height once the view has measured the
    // room (a render later): a box read in between is half old. So the layout is read again until it
    // fills the window, and only then compared with the remote browser.
    await expect(async () => {
      const stage = await box(screen(page));
      const bar = await box(statusBar(page));
      expect(stage.width, `${width}×${height}: the screen takes the window's width`).toBeGreaterThan(width - 80);
      expect(bar.y + bar.height, `${width}×${height}: the screen and its status bar take the window's height`).toBeGreaterThan(height - 80);
      expect(await remoteSize(page), `${width}×${height}: the remote browser has the screen's size`).toEqual({
        width: Math.round(stage.width),
        height: Math.round(stage.height),
      });
    }).toPass({ timeout: 10_000 });
  }

  // A wide screen's room is used at the fixed size too, not a column in the middle.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await fit.click();
  await expect(fit).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => remoteSize(page)).toEqual({ width: 1280, height: 720 });
  await expectFits(page, '1920×1080 at a fixed 1280×720');
  expect((await box(screen(page))).width, 'the fixed screen is drawn larger than its 1280 px').toBeGreaterThan(1400);
  await context.close();
});

test('on a phone the remote browser has the phone’s viewport and touch, its controls are in reach, and the account page is too', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { context: desk, page: deskPage, user } = await userSession(browser, 'phone');
  const teamId = /\/teams\/(team_[\w-]+)/.exec(deskPage.url())![1]!;
  await createKey(deskPage, teamId, 'phone key');
  const live = await startBrowser(deskPage, teamId, 'Phone browser');
  const storageState = await desk.storageState();
  await desk.close();

  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState });
  const page = await context.newPage();
  await page.goto(live);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  await expect(page.getByRole('button', { name: 'Fit to window' }), 'a phone fits the remote browser to itself').toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await page.getByLabel('Address').fill(siteUrl);
  await page.getByLabel('Address').press('Enter');
  const stage = await box(screen(page));
  const tab = page.getByRole('tab', { selected: true });
  // The remote page is as wide as the phone's screen shows it and knows it is on a touch screen.
  await expect(tab).toHaveText(`w=${Math.round(stage.width)} touch=true taps=0`);
  expect(stage.width, 'drawn at its own size, readable').toBeGreaterThan(340);
  await expectFits(page, '390×844');

  // A tap on the screen is a tap on the remote page.
  await page.touchscreen.tap(stage.x + stage.width / 2, stage.y + 50);
  await expect(tab).toHaveText(/taps=1$/);

  // Every control is on screen.
  for (const part of [
    page.getByRole('button', { name: 'Back' }),
    page.getByLabel('Address'),
    page.getByRole('button', { name: 'Fit to window' }),
    page.getByRole('button', { name: 'Release control' }),
    page.getByRole('button', { name: 'Share' }),
    page.getByRole('button', { name: 'Stop Phone browser' }),
  ])
    expect(
      inWindow(page, await box(part)),
      `${await part.evaluate((e) => e.getAttribute('aria-label') ?? e.textContent)} is on screen`,
    ).toBe(true);

  // The account page is one tap away.
  const account = page.getByRole('link', { name: `Your account: ${user.email}` });
  await expect(account).toBeVisible();
  expect(inWindow(page, await box(account))).toBe(true);
  await account.tap();
  await expect(page).toHaveURL(/\/account$/);
  // Its cards keep their contents off their edges.
  const card = await box(page.getByRole('region', { name: 'Password' }));
  const field = await box(page.getByLabel('Current password'));
  expect(field.x - card.x, 'the card has padding').toBeGreaterThanOrEqual(8);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  await context.close();
});

test('a shared link fits the 1280×800 frame its embed code hands out', async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await userSession(browser, 'embedder');
  const teamId = /\/teams\/(team_[\w-]+)/.exec(page.url())![1]!;
  await createKey(page, teamId, 'embed key');
  await page.goto(await startBrowser(page, teamId, 'Embedded browser'));
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  await page.getByRole('button', { name: 'Share' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this browser' });
  await dialog.getByLabel('Who it is for').fill('Frame');
  await expect(dialog.getByLabel('Lasts').locator('option').first(), 'the shortest link the service allows').toHaveText('5 minutes');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = (await page.getByTestId('live-link').textContent()) ?? '';
  const code =
    (await page
      .getByRole('dialog', { name: 'Shared link' })
      .getByText(/^<iframe /)
      .textContent()) ?? '';
  const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(code) ?? [];
  expect([width, height]).toEqual(['1280', '800']);

  const guest = await browser.newContext({ viewport: { width: Number(width), height: Number(height) } });
  const view = await guest.newPage();
  await view.goto(link);
  await expect(view.getByText('Watching through a shared link')).toBeVisible();
  await expectFits(view, 'the embed at 1280×800');
  expect(await view.evaluate(() => document.documentElement.scrollHeight), 'the page is no taller than its frame').toBeLessThanOrEqual(800);
  await guest.close();
  await context.close();
});
