import { expect, test, type Page } from '@playwright/test';
import WebSocket from 'ws';
import { createKey, createTeam, inviteLink, newUser, signUp, userSession } from '../helpers/portal.ts';
import { E2E_SERVICE_URL } from '../helpers/portal-env.ts';

/** Start a browser from the dashboard; returns its instance id (the live page opens). */
async function startBrowser(page: Page, teamId: string, name: string): Promise<string> {
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  return /\/browsers\/(inst_[\w-]+)$/.exec(page.url())![1]!;
}

const card = (page: Page, name: string) => page.getByRole('listitem', { name });

test("two members see each other's browsers live; another team sees neither; a stop reaches every view; control is handed over", async ({
  page,
  browser,
  baseURL,
}) => {
  // Three people, two browsers and a hand-over: 42 s on its own, more on a busy machine.
  test.setTimeout(120_000);
  // Ada owns a team with a key; Bob joins it as a member.
  await signUp(page, newUser('ada'));
  const teamId = await createTeam(page, 'Browsing crew');
  await createKey(page, teamId, 'crew key');
  const link = await inviteLink(page, teamId, 'Member');
  const bob = await userSession(browser, 'bob');
  await bob.page.goto(link);
  await bob.page.getByRole('button', { name: 'Join Browsing crew' }).click();
  await expect(bob.page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));

  // Each starts a browser; both dashboards show both, pushed without a reload.
  await bob.page.goto(`/teams/${teamId}/browsers`);
  await expect(bob.page.getByText('No browsers running')).toBeVisible();
  const adaId = await startBrowser(page, teamId, 'Ada browser');
  await expect(card(bob.page, 'Ada browser')).toBeVisible();
  const bobDash = await bob.context.newPage();
  await bobDash.goto(`/teams/${teamId}/browsers`);
  const bobId = await startBrowser(bob.page, teamId, 'Bob browser');
  await page.goto(`/teams/${teamId}/browsers`);
  for (const p of [page, bobDash]) {
    await expect(card(p, 'Ada browser')).toBeVisible();
    await expect(card(p, 'Bob browser')).toBeVisible();
    await expect(p.getByLabel('This team: 2 of 10')).toBeVisible();
  }
  await expect(card(bobDash, 'Bob browser')).toContainText(/1 watching · .+ has control/);
  await expect(card(page, 'Ada browser').getByRole('img', { name: 'Thumbnail of Ada browser' })).toBeVisible();
  // Only the starter, owners and admins may stop: Bob sees no Stop on Ada's browser, Ada (owner) sees both.
  await expect(card(bobDash, 'Ada browser').getByRole('button', { name: 'Stop Ada browser' })).toHaveCount(0);
  await expect(card(page, 'Bob browser').getByRole('button', { name: 'Stop Bob browser' })).toBeVisible();
  expect((await bobDash.request.delete(`/api/teams/${teamId}/browsers/${adaId}`)).status()).toBe(403);

  // Filters and sorting.
  await page.getByLabel('Address or title').fill('no-such-address');
  await expect(page.getByText('No browser matches these filters.')).toBeVisible();
  await page.getByLabel('Address or title').fill('');
  await page.getByLabel('Sort').selectOption('oldest');
  await expect(page.getByRole('listitem').first()).toHaveAttribute('aria-label', 'Ada browser');
  await page.getByLabel('Sort').selectOption('newest');
  await expect(page.getByRole('listitem').first()).toHaveAttribute('aria-label', 'Bob browser');

  // Carol, of another team, sees neither: not the page, not the API, not the push channel.
  const carol = await userSession(browser, 'carol');
  await carol.page.goto(`/teams/${teamId}/browsers`);
  await expect(carol.page.getByText('Ada browser')).toHaveCount(0);
  await expect(carol.page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
  for (const path of [`/api/teams/${teamId}/browsers`, `/api/teams/${teamId}/browsers/${adaId}`]) {
    expect((await carol.page.request.get(path)).status(), path).toBe(404);
  }
  expect((await carol.page.request.delete(`/api/teams/${teamId}/browsers/${adaId}`)).status()).toBe(404);
  await carol.page.goto(`/teams/${teamId}/browsers/${adaId}`);
  await expect(carol.page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
  const cookie = (await carol.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const ws = baseURL!.replace('http', 'ws');
  for (const path of [`/events/${teamId}`, `/live/${adaId}`]) {
    const status = await new Promise<number>((resolve) => {
      const s = new WebSocket(`${ws}${path}`, { headers: { cookie, origin: baseURL! } });
      s.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      s.once('open', () => resolve(101));
      s.once('error', () => {});
    });
    expect(status, path).toBe(404);
  }

  // Ada is watching her browser (and has control); Bob watches it without control, asks, and receives it.
  const adaView = await page.context().newPage();
  await adaView.goto(`/teams/${teamId}/browsers/${adaId}`);
  await expect(adaView.getByTestId('control-status')).toHaveText(/You have control/);
  await bobDash.goto(`/teams/${teamId}/browsers`);
  await card(bobDash, 'Ada browser').getByRole('link', { name: 'Watch Ada browser' }).first().click();
  await expect(bobDash.getByTestId('control-status')).toHaveText(/ has control/);
  await expect(bobDash.getByLabel('Address')).toBeDisabled();
  await expect(card(page, 'Ada browser')).toContainText('2 watching');
  // Asking shows at once on both sides: Bob sees he is waiting, Ada sees the question over the screen.
  await bobDash.getByRole('button', { name: 'Ask for control' }).click();
  await expect(bobDash.getByRole('status').filter({ hasText: 'Waiting for' })).toBeVisible();
  const question = adaView.getByRole('alert').filter({ hasText: `${bob.user.name} asks for control.` });
  await expect(question).toBeInViewport();
  // Ada says no; Bob is told, and may ask again; this time she hands over.
  await question.getByRole('button', { name: `Decline ${bob.user.name}` }).click();
  await expect(bobDash.getByRole('status').filter({ hasText: 'said no for now' })).toBeVisible();
  await expect(question).toBeHidden();
  await bobDash.getByRole('button', { name: 'Ask for control' }).click();
  await adaView.getByRole('button', { name: `Give control to ${bob.user.name}` }).click();
  await expect(bobDash.getByTestId('control-status')).toHaveText(/You have control/);
  await expect(bobDash.getByLabel('Address')).toBeEnabled();
  await expect(adaView.getByTestId('control-status')).toHaveText(`${bob.user.name} has control`);

  // Ada stops her browser: Bob's dashboard and live view show it ended within 2 s.
  const bobBoard = await bob.context.newPage();
  await bobBoard.goto(`/teams/${teamId}/browsers`);
  await expect(card(bobBoard, 'Ada browser')).toBeVisible();
  await page.goto(`/teams/${teamId}/browsers`);
  // Bob is in control of it: Ada is asked first, told who, and may change her mind.
  await card(page, 'Ada browser').getByRole('button', { name: 'Stop Ada browser' }).click();
  const confirm = page.getByRole('dialog', { name: 'Stop Ada browser?' });
  await expect(confirm).toContainText(`${bob.user.name} has control`);
  await confirm.getByRole('button', { name: 'Keep it running' }).click();
  await expect(confirm).toBeHidden();
  await expect(bobDash.getByTestId('control-status')).toHaveText(/You have control/);
  await card(page, 'Ada browser').getByRole('button', { name: 'Stop Ada browser' }).click();
  await confirm.getByRole('button', { name: 'Stop it' }).click();
  await expect(bobDash.getByRole('status').filter({ hasText: 'This browser has ended' })).toBeVisible({ timeout: 2000 });
  await expect(card(bobBoard, 'Ada browser')).toHaveCount(0, { timeout: 2000 });
  await expect(bobBoard.getByRole('table', { name: 'Ended browsers' }).getByRole('row').filter({ hasText: 'Ada browser' })).toContainText(
    'Stopped',
  );

  // Clean up: Bob stops his own. Only he watches it (in another tab), so nobody is asked.
  await card(bobBoard, 'Bob browser').getByRole('button', { name: 'Stop Bob browser' }).click();
  await expect(bobBoard.getByText('No browsers running')).toBeVisible();
  expect(bobId).toMatch(/^inst_/);
  await adaView.close();
  await bob.context.close();
  await carol.context.close();
});

test("browsers a script starts with the team's keys are on the dashboard, live; an owner can stop one, a member cannot", async ({
  page,
  browser,
}) => {
  await signUp(page, newUser('scripter'));
  const teamId = await createTeam(page, 'Script crew');
  const { token } = await createKey(page, teamId, 'ci key');
  const link = await inviteLink(page, teamId, 'Member');
  const member = await userSession(browser, 'watcher');
  await member.page.goto(link);
  await member.page.getByRole('button', { name: 'Join Script crew' }).click();
  await page.goto(`/teams/${teamId}/browsers`);
  await member.page.goto(`/teams/${teamId}/browsers`);

  // A script starts a browser with the team's key, straight at the service, and opens a page.
  const start = new WebSocket(`${E2E_SERVICE_URL.replace(/^http/, 'ws')}/start`, { headers: { authorization: `Bearer ${token}` } });
  const closed = new Promise<number>((resolve) => start.once('close', (code) => resolve(code)));
  const id = await new Promise<string>((resolve, reject) => {
    start.once('message', (data) => resolve(data.toString()));
    start.once('error', reject);
  });
  const version = (await (
    await fetch(`${E2E_SERVICE_URL}/json/version`, { headers: { authorization: `Bearer ${token}`, 'x-browser-id': id } })
  ).json()) as {
    webSocketDebuggerUrl: string;
  };
  const cdp = new WebSocket(version.webSocketDebuggerUrl, { headers: { authorization: `Bearer ${token}`, 'x-browser-id': id } });
  await new Promise((resolve) => cdp.once('open', resolve));
  cdp.send(JSON.stringify({ id: 1, method: 'Target.createTarget', params: { url: 'data:text/html,<title>Nightly report</title>' } }));

  // Both dashboards show it, pushed without a reload: the key, the page, the tabs.
  for (const p of [page, member.page]) {
    const row = p
      .getByRole('table', { name: "Browsers started with the team's keys" })
      .getByRole('row')
      .filter({ hasText: 'Nightly report' });
    await expect(row).toBeVisible({ timeout: 15_000 });
    await expect(row).toContainText('ci key');
    await expect(row.getByRole('cell').nth(2)).toHaveText('2');
  }
  const memberRow = member.page
    .getByRole('table', { name: "Browsers started with the team's keys" })
    .locator(`tr[data-browser-id="${id}"]`);
  await expect(memberRow.getByRole('button', { name: /^Stop/ }), 'a member may not end what a script holds').toHaveCount(0);

  // The owner stops it, after saying yes: the script's /start closes with 4410, and the row goes from every dashboard.
  const ownerRow = page.getByRole('table', { name: "Browsers started with the team's keys" }).locator(`tr[data-browser-id="${id}"]`);
  await ownerRow.getByRole('button', { name: /^Stop/ }).click();
  const dialog = page.getByRole('dialog', { name: /^Stop the browser of key ci key/ });
  await expect(dialog).toContainText('A script or another client holds this browser');
  await dialog.getByRole('button', { name: 'Stop it' }).click();
  expect(await closed).toBe(4410);
  await expect(ownerRow).toHaveCount(0);
  await expect(memberRow).toHaveCount(0, { timeout: 15_000 });
  cdp.close();
  // It is listed among the ended ones instead, by its page, once, with why it ended (decision 0112).
  const endedRow = member.page.getByRole('table', { name: 'Ended browsers' }).locator(`tr[data-browser-id="${id}"]`);
  await expect(endedRow).toHaveCount(1, { timeout: 15_000 });
  await expect(endedRow).toContainText('Nightly report');
  await expect(endedRow).toContainText('A script with ci key');
  await expect(endedRow.getByRole('cell').last()).toHaveText('Stopped');

  // The audit log says who stopped it, and that a script had started it.
  await page.goto(`/teams/${teamId}/audit`);
  await expect(page.getByRole('row').filter({ hasText: 'Nightly report' }).first()).toBeVisible();
  await member.context.close();
});

test("a script's browser is watched live from the dashboard, shared, and stopped from there; it stays the script's", async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  await signUp(page, newUser('onlooker'));
  const teamId = await createTeam(page, 'Onlookers');
  const { token } = await createKey(page, teamId, 'ci key');
  const start = new WebSocket(`${E2E_SERVICE_URL.replace(/^http/, 'ws')}/start`, { headers: { authorization: `Bearer ${token}` } });
  const closed = new Promise<number>((resolve) => start.once('close', (code) => resolve(code)));
  const id = await new Promise<string>((resolve, reject) => {
    start.once('message', (data) => resolve(data.toString()));
    start.once('error', reject);
  });
  const headers = { authorization: `Bearer ${token}`, 'x-browser-id': id };
  const version = (await (await fetch(`${E2E_SERVICE_URL}/json/version`, { headers })).json()) as { webSocketDebuggerUrl: string };
  const cdp = new WebSocket(version.webSocketDebuggerUrl, { headers });
  await new Promise((resolve) => cdp.once('open', resolve));
  cdp.send(
    JSON.stringify({
      id: 1,
      method: 'Target.createTarget',
      params: { url: 'data:text/html,<title>Nightly report</title><h1>Report</h1>' },
    }),
  );

  await page.goto(`/teams/${teamId}/browsers`);
  const row = page.locator(`tr[data-browser-id="${id}"]`);
  await expect(row).toContainText('Nightly report', { timeout: 15_000 });
  await row.getByRole('button', { name: 'Watch' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+\?mode=watch$/);
  await expect(page.getByText('A browser a script started with the key “ci key”')).toBeVisible();
  await expect(page.getByTestId('control-status')).toHaveText('Nobody has control');
  await expect
    .poll(() => page.getByRole('img', { name: /^Screen of/ }).evaluate((c: HTMLCanvasElement) => c.width), { timeout: 15_000 })
    .toBeGreaterThan(0);

  // Nobody outside the team can watch it, whatever they know of it.
  const outsider = await userSession(browser, 'peeker');
  const theirTeam = await createTeam(outsider.page, 'Peekers');
  for (const path of [`/api/teams/${teamId}/browsers/${id}/watch`, `/api/teams/${theirTeam}/browsers/${id}/watch`]) {
    expect((await outsider.page.request.post(path)).status(), path).toBe(404);
  }
  await outsider.context.close();

  // Shared like any of the team's browsers.
  await page.getByRole('button', { name: 'Share' }).click();
  await page.getByRole('dialog', { name: 'Share this browser' }).getByRole('button', { name: 'Create link' }).click();
  const link = (await page.getByTestId('live-link').textContent()) ?? '';
  await page.getByRole('button', { name: 'Done' }).click();
  const guest = await browser.newContext();
  const view = await guest.newPage();
  await view.goto(link);
  await expect(view.getByText('Watching through a shared link')).toBeVisible();

  // Stopping it from here ends it for the script, after a warning that says so.
  await page.getByRole('button', { name: 'Stop Nightly report' }).click();
  const dialog = page.getByRole('dialog', { name: /^Stop Nightly report/ });
  await expect(dialog).toContainText('A script holds this browser');
  await dialog.getByRole('button', { name: 'Stop it' }).click();
  expect(await closed).toBe(4410);
  await expect(view.getByText('This browser has ended').first()).toBeVisible();
  cdp.close();
  await guest.close();
});
