import { chromium, expect, test, type Page } from '@playwright/test';
import WebSocket from 'ws';
import { startPageServer } from '../helpers/pages.ts';
import { E2E_SERVICE_URL } from '../helpers/portal-env.ts';
import { LIVE_PROTOCOL_VERSION } from '#portal/protocol/live.ts';
import { createKey, createTeam, inviteLink, joinTeam, newUser, signUp, userSession } from '../helpers/portal.ts';
import { portalSocket, type Watched } from '../helpers/portal-sockets.ts';

/**
 * The session inspector end to end: a Playwright script drives a browser through the API with a
 * team key that records, and the team's inspector shows what it did, each thing at its moment.
 */
let pages: Awaited<ReturnType<typeof startPageServer>>;
test.beforeAll(async () => {
  pages = await startPageServer();
});
test.afterAll(async () => {
  await pages.close();
});

/**
 * A script's session: /start, then Playwright over CDP, three pages, a console error and a failed
 * request (or `third`, which may not load). It ends once the team's recording (read as `viewer`,
 * a member's page) holds a frame of the last page: on a loaded machine the screen is recorded a
 * while after the page opens, and a browser closed before then would leave no screen of it.
 */
async function scriptedSession(
  token: string,
  viewer: { page: Page; teamId: string },
  third?: string,
  thirdFails = false,
): Promise<{ id: string; broken: string }> {
  const start = new WebSocket(`${E2E_SERVICE_URL.replace(/^http/, 'ws')}/start`, { headers: { authorization: `Bearer ${token}` } });
  const id = await new Promise<string>((resolve, reject) => {
    start.once('message', (data) => resolve(data.toString()));
    start.once('error', reject);
  });
  const headers = { authorization: `Bearer ${token}`, 'x-browser-id': id };
  const { webSocketDebuggerUrl } = (await (await fetch(`${E2E_SERVICE_URL}/json/version`, { headers })).json()) as {
    webSocketDebuggerUrl: string;
  };
  const browser = await chromium.connectOverCDP(webSocketDebuggerUrl, { headers });
  const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
  await page.goto(`${pages.url}?one`);
  await page.waitForTimeout(700);
  await page.goto(`${pages.url}?two`);
  await page.waitForTimeout(700);
  // A long data: address with no room to wrap, as a script's generated pages often have.
  const broken = `data:text/html,<title>Broken</title><h1>Broken page</h1><script>console.error("boom", 42); fetch("http://127.0.0.1:1/nope").catch(() => {});</script><!--${'x'.repeat(400)}-->`;
  // A third page that cannot load is what the recording is to tell of, not an error of the script's.
  await page.goto(third ?? broken).catch((err: unknown) => {
    if (!thirdFails) throw err;
  });
  await page.waitForTimeout(1500);
  await untilFramed(viewer.page, viewer.teamId, id);
  await browser.close();
  start.close();
  return { id, broken };
}

/** Waits until the recording so far has a frame taken at or after its newest navigation. */
async function untilFramed(page: Page, teamId: string, id: string): Promise<void> {
  type Event = { t: number; type: string };
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/teams/${teamId}/recordings/${id}`);
        if (!res.ok()) return `the recording answered ${res.status()}`;
        const { events } = ((await res.json()) as { recording: { events: Event[] } }).recording;
        const opened = events.filter((e) => e.type === 'navigation').at(-1);
        if (!opened) return 'no page opened yet';
        return events.some((e) => e.type === 'frame' && e.t >= opened.t) ? 'framed' : 'no frame of the last page yet';
      },
      { timeout: 30_000, message: "a frame of the script's last page is recorded" },
    )
    .toBe('framed');
}

const clockOf = async (page: Page) => (await page.locator('.inspector-clock').textContent()) ?? '';
/** Milliseconds of an `m:ss.t` clock (the part before ` / `). */
const msOf = (clock: string) => {
  const [m, s] = clock.split(' / ')[0]!.split(':');
  return Math.round(Number(m) * 60_000 + Number(s) * 1000);
};

test('the inspector shows what a recorded script did, each at its moment, and only to the team', async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signUp(page, newUser('inspect'));
  const teamId = await createTeam(page, 'Inspecting crew');
  const { token } = await createKey(page, teamId, 'recorded key');
  // One switch on the team's settings turns recording on for its keys.
  await page.goto(`/teams/${teamId}/settings`);
  const recordSwitch = page.getByRole('switch', { name: "Record every browser started with this team's keys" });
  await expect(recordSwitch).toHaveAttribute('aria-checked', 'false');
  await recordSwitch.click();
  await expect(page.getByRole('status').filter({ hasText: 'Recording is on for 1 key' })).toBeVisible();
  await page.reload();
  await expect(recordSwitch).toHaveAttribute('aria-checked', 'true');

  const { id } = await scriptedSession(token, { page, teamId });

  // Across recordings: which runs had a request that got no answer, from which host, this week.
  await page.goto(`/teams/${teamId}/recordings`);
  const search = page.getByRole('form', { name: 'Find events across recordings' });
  await search.getByLabel('Status').fill('failed');
  await search.getByLabel('Host').fill('127.0.0.1');
  await search.getByRole('button', { name: 'Find' }).click();
  await expect(page).toHaveURL(/status=failed&host=127\.0\.0\.1/);
  const found = page.getByRole('table', { name: 'Events found' }).getByRole('row');
  await expect(found).toHaveCount(2); // the heading and the one failed request
  await expect(found.nth(1)).toContainText('GET http://127.0.0.1:1/nope → ERR_UNSAFE_PORT');
  await search.getByLabel('Status').fill('5xx');
  await search.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByText('No events match')).toBeVisible();
  await search.getByLabel('Status').fill('600');
  await search.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'status must be a status such as 404' })).toBeVisible();
  // The pages opened, the long data: address among them, fit the window too.
  await page.goto(`/teams/${teamId}/recordings?type=navigation`);
  await expect(page.getByRole('table', { name: 'Events found' })).toContainText('Opened data:text/html,<title>Broken');
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    'the page is as wide as the window',
  ).toBeLessThanOrEqual(0);
  await page.goto(`/teams/${teamId}/recordings?status=failed`);
  await page.getByRole('table', { name: 'Events found' }).getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/recordings/${id}\\?t=\\d+$`));
  await expect(page.getByRole('tabpanel', { name: 'Console' })).toBeVisible();

  await page.goto(`/teams/${teamId}/recordings`);
  const row = page.locator(`tr[data-browser-id="${id}"]`);
  await expect(row).toContainText('recorded key');
  // The script closed its browser: the state says so as the dashboard does, and the long address
  // is cut in its cell, so that no column is pushed off the screen.
  await expect(row.getByRole('cell').last()).toHaveText('Stopped');
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    'the page is as wide as the window',
  ).toBeLessThanOrEqual(0);
  const state = (await row.getByRole('cell').last().boundingBox())!;
  expect(state.x + state.width, 'the state column is on screen').toBeLessThanOrEqual(page.viewportSize()!.width);
  await row.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/recordings/${id}$`));
  // Named by its page and its start, not by its id.
  await expect(page.getByRole('heading', { level: 2, name: 'Broken' })).toBeVisible();
  await expect(page.getByText(/^Started .* with the key “recorded key” · Stopped$/)).toBeVisible();
  // Every date on the page in the portal's one format.
  await expect(page.getByTestId('recording-end')).toHaveText(/^Ended \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$/);

  // The console: the three pages and the error, in order; the error marked as a problem.
  const consoleRows = page.getByRole('tabpanel', { name: 'Console' }).getByRole('listitem');
  await expect(consoleRows.filter({ hasText: 'Navigated to' })).toHaveCount(3, { timeout: 15_000 });
  const boom = consoleRows.filter({ hasText: 'boom 42' });
  await expect(boom).toHaveAttribute('data-bad', 'true');
  const texts = await consoleRows.allTextContents();
  const at = (needle: string) => texts.findIndex((t) => t.includes(needle));
  expect(at('?one')).toBeLessThan(at('?two'));
  expect(at('?two')).toBeLessThan(at('Broken'));
  expect(at('Broken')).toBeLessThan(at('boom 42'));

  // Clicking the error takes the player to a moment whose screen is the broken page's: the error's
  // own moment, or the page's first frame when that came later (the script logs before the page is drawn).
  const recorded = (await (await page.request.get(`/api/teams/${teamId}/recordings/${id}`)).json()) as {
    recording: { events: { t: number; type: string; url?: string; offset?: number }[] };
  };
  const opened = recorded.recording.events.find(
    (e) => e.type === 'navigation' && String(e.url).startsWith('data:text/html,<title>Broken'),
  )!;
  const frames = recorded.recording.events.filter((e) => e.type === 'frame');
  const moment = (await boom.locator('.inspector-at').textContent())!;
  await boom.getByRole('button').click();
  await expect(boom).toHaveAttribute('data-current', 'true');
  const screen = page.getByRole('img', { name: /^The screen at/ });
  await expect(screen).toBeVisible();
  await expect.poll(() => screen.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  const offset = Number(new URL((await screen.getAttribute('src'))!, 'http://portal').searchParams.get('offset'));
  const shown = frames.find((f) => f.offset === offset)!;
  expect(shown.t, "the frame shown was taken once the broken page had opened, not the page before's").toBeGreaterThanOrEqual(opened.t);
  expect(msOf(await clockOf(page)), 'the player is at or after the error').toBeGreaterThanOrEqual(msOf(moment));

  // The network: the failed request, marked.
  await page.getByRole('tab', { name: /^Network/ }).click();
  const failed = page.getByRole('tabpanel', { name: 'Network' }).getByRole('listitem').filter({ hasText: '127.0.0.1:1/nope' });
  await expect(failed).toContainText('ERR_UNSAFE_PORT');
  await expect(failed).toHaveAttribute('data-bad', 'true');
  await page.getByLabel('Problems only').check();
  await expect(page.getByRole('tabpanel', { name: 'Network' }).getByRole('listitem')).toHaveCount(1);

  // Play from the start at 8×: the player runs to the end.
  await page.getByRole('slider', { name: 'Position in the recording' }).fill('0');
  await page.getByLabel('Speed').selectOption('8');
  await page.getByRole('button', { name: 'Play' }).click();
  await expect
    .poll(
      async () => {
        const [now, end] = (await clockOf(page)).split(' / ');
        return now === end;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  await expect(page.getByRole('button', { name: 'Play' })).toBeVisible();

  // Another run of the script that went elsewhere at its third page: the comparison opens where they part.
  await scriptedSession(token, { page, teamId }, `${pages.url}?three`);
  await page.goto(`/teams/${teamId}/recordings`);
  const chooser = page.getByRole('form', { name: 'Compare two recordings' });
  const boxes = chooser.getByRole('checkbox');
  await expect(boxes).toHaveCount(2);
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await chooser.getByRole('button', { name: 'Compare the two chosen' }).click();
  await expect(page).toHaveURL(/\/recordings\/compare\?run=br_[\w-]+&run=br_[\w-]+$/);
  await expect(page.getByTestId('difference')).toHaveText('The runs part at page 3 of 3.');
  const steps = page.getByRole('list', { name: 'Pages opened, run by run' }).getByRole('listitem');
  await expect(steps.nth(0)).toContainText('(the same)');
  await expect(steps.nth(2)).toContainText('?three');
  // Run A is the earlier run (the broken page), whichever order they were ticked in; the long address fits.
  await expect(page.getByRole('list', { name: /Run A: .*problems on this page/ })).toContainText('boom 42');
  await expect(page.getByRole('img', { name: /^Run B: .*: the screen of .*\?three$/ })).toBeVisible();
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    'the page is as wide as the window',
  ).toBeLessThanOrEqual(0);
  await steps.nth(0).getByRole('button').click();
  await expect(page.getByText('No errors or failed requests on this page.')).toHaveCount(2);
  await page
    .getByRole('region', { name: /^Run A/ })
    .getByRole('link', { name: 'Open in the inspector here' })
    .click();
  await expect(page).toHaveURL(new RegExp(`/recordings/${id}\\?t=\\d+$`));

  // A link to a moment opens there.
  await page.goto(`/teams/${teamId}/recordings/${id}?t=1000`);
  await expect.poll(() => clockOf(page)).toMatch(/^0:01\.0 \//);

  // Another team's member gets nothing, from any route.
  const outsider = await userSession(browser, 'peeker');
  const theirTeam = await createTeam(outsider.page, 'Peekers');
  for (const path of [
    `/api/teams/${teamId}/recordings`,
    `/api/teams/${teamId}/recordings/${id}`,
    `/api/teams/${teamId}/recordings/${id}/screen?offset=0&length=10`,
    `/api/teams/${teamId}/recordings/events?status=failed`,
    `/api/teams/${theirTeam}/recordings/${id}`,
    `/api/teams/${theirTeam}/recordings/${id}/screen?offset=0&length=10`,
  ]) {
    expect((await outsider.page.request.get(path)).status(), path).toBe(404);
  }
  const theirs = (await (await outsider.page.request.get(`/api/teams/${theirTeam}/recordings`)).json()) as { recordings: unknown[] };
  expect(theirs.recordings).toEqual([]);
  const pageResponse = await outsider.page.goto(`/teams/${teamId}/recordings/${id}`);
  expect(pageResponse?.status()).toBe(404);
  await outsider.page.goto(`/teams/${theirTeam}/recordings/compare?run=${id}&run=br_${'A'.repeat(32)}`);
  await expect(outsider.page.getByText('One of these recordings is not one of this team’s, or has expired.')).toBeVisible();
  await outsider.context.close();
});

test('a page that did not load is shown in the inspector by its address and why', async ({ page }) => {
  test.setTimeout(90_000);
  await signUp(page, newUser('unloaded'));
  const teamId = await createTeam(page, 'Unloading crew');
  const { token } = await createKey(page, teamId, 'recorded key');
  await page.goto(`/teams/${teamId}/settings`);
  await page.getByRole('switch', { name: "Record every browser started with this team's keys" }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Recording is on for 1 key' })).toBeVisible();
  // A private address, which the egress policy refuses: Chromium shows its own error page there.
  const refused = 'https://10.255.255.1/private';
  const { id } = await scriptedSession(token, { page, teamId }, refused, true);
  await page.goto(`/teams/${teamId}/recordings/${id}`);
  const consoleRows = page.getByRole('tabpanel', { name: 'Console' }).getByRole('listitem');
  const failed = consoleRows.filter({ hasText: `Could not open ${refused}: refused by the egress policy` });
  await expect(failed).toHaveCount(1, { timeout: 15_000 });
  await expect(failed).toHaveAttribute('data-bad', 'true');
  await expect(consoleRows.filter({ hasText: 'chrome-error:' })).toHaveCount(0);
  await failed.getByRole('button').click();
  await expect(failed).toHaveAttribute('data-current', 'true');
  await expect(page.getByRole('img', { name: /^The screen at/ })).toBeVisible();
});

test("a portal session's recording says who had control when", async ({ browser }) => {
  test.setTimeout(90_000);
  const owner = await userSession(browser, 'driver');
  const teamId = await createTeam(owner.page, 'Handover crew');
  await createKey(owner.page, teamId, 'portal key');
  expect((await owner.page.request.put(`/api/teams/${teamId}/recording`, { data: { record: true } })).ok()).toBe(true);
  const member = await userSession(browser, 'navigator');
  await joinTeam(member.page, await inviteLink(owner.page, teamId), 'Handover crew');

  const started = await owner.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Pairing' } });
  expect(started.ok(), await started.text()).toBe(true);
  const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
  type State = { type: string; viewers?: { id: string; name: string; control: boolean }[] };
  const last = (w: Watched) => (w.messages as State[]).filter((m) => m.type === 'state').at(-1);
  const mine = await portalSocket(owner.context, `/live/${instanceId}`);
  mine.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, takeControl: true }));
  await expect.poll(() => last(mine)?.viewers?.length).toBe(1);
  const theirs = await portalSocket(member.context, `/live/${instanceId}`);
  theirs.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, takeControl: true }));
  await expect.poll(() => last(mine)?.viewers?.length).toBe(2);
  const watcher = last(mine)?.viewers?.find((v) => v.name === member.user.name);
  await owner.page.waitForTimeout(500);
  mine.ws.send(JSON.stringify({ type: 'control', action: 'grant', viewerId: watcher?.id }));
  await expect.poll(() => last(mine)?.viewers?.find((v) => v.id === watcher?.id)?.control).toBe(true);
  await owner.page.waitForTimeout(500);
  theirs.ws.close();
  await theirs.closed;
  mine.ws.close();
  await mine.closed;
  expect((await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`)).ok()).toBe(true);

  // The member, who joined later, reads the recording: whose hands were on it, in order, on the scrubber too.
  const page = member.page;
  await page.goto(`/teams/${teamId}/recordings`);
  await page.locator('tr[data-browser-id] a').first().click();
  const consoleRows = page.getByRole('tabpanel', { name: 'Console' }).getByRole('listitem');
  const control = consoleRows.filter({ hasText: /has control|took over control/ });
  await expect(control.first()).toContainText(`${owner.user.name} has control`, { timeout: 15_000 });
  await expect(control.filter({ hasText: `${member.user.name} took over control` })).toHaveCount(1);
  const texts = await control.allTextContents();
  expect(texts.findIndex((t) => t.includes(owner.user.name))).toBeLessThan(texts.findIndex((t) => t.includes(member.user.name)));
  await expect(page.locator('.inspector-mark[data-kind="control"]').first()).toBeAttached();
  await page.getByLabel('Filter').fill(member.user.name);
  await expect(consoleRows).toHaveCount(1);
});
