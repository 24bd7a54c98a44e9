import { expect, test, type Locator, type Page } from '@playwright/test';
import { startPageServer } from '../helpers/pages.ts';
import { createKey, signUp, newUser, teamIdOf } from '../helpers/portal.ts';

/**
 * Remote browsing end to end: the real portal and service, a real remote Chromium, driven through
 * the live view like a person would. The remote page mirrors every change into its title, which
 * the portal shows in its tab strip.
 */
test.describe.configure({ mode: 'serial' });

let pages: Awaited<ReturnType<typeof startPageServer>>;
test.beforeAll(async () => {
  pages = await startPageServer();
});
test.afterAll(async () => {
  await pages.close();
});

/** Where a point of the remote page (CSS pixels) is on the portal page, through the canvas. */
async function onCanvas(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  // As a person would after the page scrolled (a dialog gives focus back to the page's header):
  // bring the live view into sight, where it fits the window.
  await page.getByRole('region', { name: /^Live view of/ }).evaluate((e) => {
    if (e.getBoundingClientRect().bottom > window.innerHeight) e.scrollIntoView({ block: 'start' });
  });
  const box = (await page.getByRole('img', { name: /^Screen of/ }).boundingBox())!;
  return { x: box.x + (x / 1280) * box.width, y: box.y + (y / 720) * box.height };
}

/** Click at a point of the remote page, `clickCount` times in quick succession. */
async function remoteClick(page: Page, x: number, y: number, clickCount = 1): Promise<void> {
  const at = await onCanvas(page, x, y);
  await page.mouse.click(at.x, at.y, { clickCount });
}

async function remoteDoubleClick(page: Page, x: number, y: number): Promise<void> {
  const at = await onCanvas(page, x, y);
  await page.mouse.dblclick(at.x, at.y);
}

/** Press at one point of the remote page, move to another in steps, release. */
async function remoteDrag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  const a = await onCanvas(page, from.x, from.y);
  const b = await onCanvas(page, to.x, to.y);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

const activeTab = (page: Page): Locator => page.getByRole('tab', { selected: true });

/** How many sampled pixels of the live view's canvas are not black (the remote page is mostly white). */
const litPixels = (page: Page): Promise<number> =>
  page.getByRole('img', { name: /^Screen of/ }).evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    let lit = 0;
    for (let i = 0; data && i < data.length; i += 4 * 101) if (data[i]! + data[i + 1]! + data[i + 2]! > 60) lit++;
    return lit;
  });

test('start a browser, use it through the live view, reload, hand over control, stop it', async ({ page, context }) => {
  const user = newUser('live');
  await signUp(page, user);
  const teamId = teamIdOf(page);
  await createKey(page, teamId, 'browsing');

  await page.goto(`/teams/${teamId}/browsers`);
  await expect(page.getByText('No browsers running')).toBeVisible();
  await page.getByLabel('Name').fill('E2E browser');
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  const liveUrl = page.url();
  await expect(page.getByRole('heading', { name: 'E2E browser' })).toBeVisible();
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);

  // The whole view fits the window: address bar, screen and status bar, with no scrolling.
  const window = page.viewportSize()!;
  for (const part of [page.getByLabel('Address'), page.getByRole('img', { name: /^Screen of/ }), page.getByTestId('control-status')]) {
    const box = (await part.boundingBox())!;
    expect(box.y >= 0 && box.y + box.height <= window.height, `${await part.evaluate((e) => e.tagName)} is in the window`).toBe(true);
  }

  // Rename it.
  await page.getByRole('button', { name: 'Rename E2E browser' }).click();
  await page.getByLabel('New name').fill('Renamed browser');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('heading', { name: 'Renamed browser' })).toBeVisible();
  await page.getByRole('button', { name: 'Rename Renamed browser' }).click();
  await page.getByLabel('New name').fill('E2E browser');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('heading', { name: 'E2E browser' })).toBeVisible();

  // What cannot be opened, or did not load, is said in words beside the screen, not over it.
  const problem = page.getByRole('region', { name: /^Live view of/ }).getByRole('alert');
  await page.getByLabel('Address').fill('file:///etc/passwd');
  await page.getByLabel('Address').press('Enter');
  await expect(problem).toHaveText(/file: addresses cannot be opened here/);
  await page.getByLabel('Address').fill('10.255.255.1:8080');
  await page.getByLabel('Address').press('Enter');
  await expect(problem).toContainText('Blocked: 10.255.255.1:8080 is a private or reserved address');
  await expect(problem).toContainText('BROWSER_EGRESS_ALLOW');
  const said = (await problem.boundingBox())!;
  const screen = (await page.getByRole('img', { name: /^Screen of/ }).boundingBox())!;
  expect(said.y + said.height, 'the words are above the screen').toBeLessThanOrEqual(screen.y + 1);

  // Address bar.
  await page.getByLabel('Address').fill(`${pages.url}live`);
  await page.getByLabel('Address').press('Enter');
  await expect(activeTab(page)).toHaveText(/Live test page/);
  await expect(problem, 'a page that loads clears the words').toHaveCount(0);

  // Click a button inside the live view and see the remote page change.
  await remoteClick(page, 150, 125);
  await expect(activeTab(page)).toHaveText(/clicked 1/);

  // Type into a remote field, with a shortcut (select all, then replace) and a paste.
  await remoteClick(page, 200, 215);
  await page.keyboard.type('hello');
  await expect(activeTab(page)).toHaveText(/field: hello/);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Z');
  await expect(activeTab(page)).toHaveText(/field: Z$/);
  await page.getByLabel('Keyboard input for the remote browser').evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', ' pasted');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await expect(activeTab(page)).toHaveText(/field: Z pasted/);

  // Scroll with the wheel.
  const canvas = page.getByRole('img', { name: /^Screen of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 400);
  await expect(activeTab(page)).toHaveText(/scrolled [1-9]\d*/);
  await page.mouse.wheel(0, -2000);
  await expect(activeTab(page)).toHaveText(/scrolled 0/);

  // Select text as in a local browser: double-click a word, triple-click the line, drag across part
  // of a word and across a whole one (words at x = 100 + 120 i, y = 500..524).
  await remoteDoubleClick(page, 245, 512);
  await expect(activeTab(page)).toHaveText(/selected: bravo$/);
  await remoteClick(page, 250, 512, 3);
  await expect(activeTab(page)).toHaveText(/selected: alpha bravo charlie delta$/);
  await remoteClick(page, 700, 700); // away first: a press on selected text would drag the text itself
  await remoteDrag(page, { x: 341, y: 512 }, { x: 368, y: 512 });
  await expect(activeTab(page)).toHaveText(/selected: ch?a?$/);
  await remoteClick(page, 700, 700);
  await remoteDrag(page, { x: 341, y: 512 }, { x: 455, y: 512 });
  await expect(activeTab(page)).toHaveText(/selected: charlie$/);
  await remoteClick(page, 700, 700); // click away: nothing selected

  // Answer a JavaScript dialog in the page.
  await remoteClick(page, 150, 325);
  const dialog = page.getByRole('alertdialog', { name: /Your name\?/ });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Answer').fill('Grace');
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(activeTab(page)).toHaveText(/answer: Grace/);
  await expect(dialog).toBeHidden();

  // Open, switch and close tabs.
  await page.getByRole('button', { name: 'New tab' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
  await page.getByLabel('Address').fill(`${pages.url}?second`);
  await page.getByLabel('Address').press('Enter');
  await expect(activeTab(page)).toHaveText(/127\.0\.0\.1.*second|Periscope test page/);
  await page.getByRole('tab', { name: /answer: Grace/ }).click();
  await expect(activeTab(page)).toHaveText(/answer: Grace/);
  await page.getByRole('tab', { name: /Periscope test page|127/ }).press('Delete');
  await expect(page.getByRole('tab')).toHaveCount(1);

  // The same from the keyboard, anywhere on the page; the keys never reach the remote page.
  await page.keyboard.press('Alt+Shift+T');
  await expect(page.getByRole('tab')).toHaveCount(2);
  await page.keyboard.press('Alt+Shift+L');
  await expect(page.getByLabel('Address')).toBeFocused();
  await page.keyboard.press('Alt+Shift+W');
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expect(activeTab(page)).toHaveText(/answer: Grace/);
  await page.keyboard.press('Alt+Shift+Slash');
  const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(shortcuts).toContainText('Go to the address bar');
  await page.keyboard.press('Escape');
  await expect(shortcuts).toBeHidden();

  // Reload the portal page: the same instance, in the same state.
  await page.reload();
  await expect(page).toHaveURL(liveUrl);
  await expect(activeTab(page)).toHaveText(/answer: Grace/);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);

  // A second viewer watches, asks for control and receives it. The page is not changing, so no new
  // frame comes: the newcomer must see the current screen at once, and keep seeing it.
  const second = await context.newPage();
  await second.goto(liveUrl);
  await expect(second.getByTestId('control-status')).toHaveText(new RegExp(`${user.name} has control`));
  await expect.poll(() => litPixels(second), { message: 'the second viewer sees the screen' }).toBeGreaterThan(200);
  await second.waitForTimeout(1000); // let every render of the page settle: none may clear the screen
  expect(await litPixels(second), 'and keeps seeing it').toBeGreaterThan(200);
  await expect(second.getByLabel('Address')).toBeDisabled();
  await second.getByRole('button', { name: 'Ask for control' }).click();
  await expect(second.getByRole('status').filter({ hasText: 'Waiting for' })).toBeVisible();
  // Taken back, then asked again.
  await second.getByRole('button', { name: 'Cancel' }).click();
  await expect(second.getByRole('button', { name: 'Ask for control' })).toBeVisible();
  await second.getByRole('button', { name: 'Ask for control' }).click();
  await page.getByRole('button', { name: `Give control to ${user.name}` }).click();
  await expect(second.getByTestId('control-status')).toHaveText(/You have control/);
  await expect(page.getByTestId('control-status')).toHaveText(new RegExp(`${user.name} has control`));
  await remoteClick(second, 150, 125);
  await expect(activeTab(second)).toHaveText(/clicked 2/);
  await expect(activeTab(page)).toHaveText(/clicked 2/);

  // Stop it: the other viewer is the same person in another tab, so nobody is asked; both views
  // say it ended, and it is gone from the list.
  await page.getByRole('button', { name: 'Stop E2E browser' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));
  await expect(second.getByRole('status').filter({ hasText: 'This browser has ended' })).toBeVisible();
  await expect(page.getByText('No browsers running')).toBeVisible();
});

test('a key the service refuses gives a clear message, not a browser', async ({ page }) => {
  await signUp(page, newUser('refused'));
  const teamId = teamIdOf(page);
  const added = await page.request.post(`/api/teams/${teamId}/keys`, {
    data: { mode: 'add', name: 'stale key', key: `psk_0123456789abcdef_${'A'.repeat(43)}` },
  });
  expect(added.status()).toBe(200);
  const { key } = (await added.json()) as { key: { id: string } };
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('API key').selectOption(key.id);
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'The service refused the key' })).toHaveText(
    'The service refused the key "stale key": it may have been revoked. Check it on the API keys page.',
  );
  await expect(page.getByText('No browsers running')).toBeVisible();
});
