import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../helpers/portal-env.ts';
import { createKey, createTeam, userSession } from '../helpers/portal.ts';

/**
 * Shared links to a live browser (decision 0071), as people use them: a member shares a browser
 * from its page; someone without an account opens the link, alone or framed in another site's
 * page, and watches; the member revokes it and the view ends; an expired link, a revoked one and
 * one whose browser ended each say so in words.
 */
/** Another site (another origin: its own port) whose page frames `link`. */
async function partnerSite(link: string): Promise<{ url: string; close: () => void }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>Partner</title><h1>Partner</h1><iframe src="${link}" width="1200" height="800"></iframe>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

/** Make a link on the live page's Share dialog; returns its address. */
async function share(page: Page, label: string): Promise<string> {
  await page.getByRole('button', { name: 'Share' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this browser' });
  await dialog.getByLabel('Who it is for').fill(label);
  await dialog.getByLabel('Lasts').selectOption({ label: '1 hour' });
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = (await page.getByTestId('live-link').textContent()) ?? '';
  expect(link).toMatch(/\/embed\/[\w-]{43}$/);
  return link;
}

test('a shared link shows the live browser to someone without an account, framed in another site too, until it is revoked', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = await userSession(browser, 'sharer');
  const teamId = await createTeam(owner.page, 'Sharing crew');
  await createKey(owner.page, teamId, 'share key');
  const started = await owner.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Demo browser' } });
  const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
  await owner.page.goto(`/teams/${teamId}/browsers/${instanceId}`);
  await expect(owner.page.getByTestId('control-status')).toContainText('You have control');
  const link = await share(owner.page, 'Customer');
  await owner.page.getByRole('button', { name: 'Done' }).click();

  // Someone with the link and no account: the browser, watch only.
  const guest = await browser.newContext();
  const view = await guest.newPage();
  const res = await view.goto(link);
  expect(res?.headers()['x-frame-options']).toBeUndefined();
  expect(res?.headers()['content-security-policy']).toBe('frame-ancestors *');
  await expect(view.getByRole('heading', { name: 'Demo browser' })).toBeVisible();
  await expect(view.getByText('Watching through a shared link')).toBeVisible();
  await expect(view.getByRole('button', { name: 'Ask for control' })).toHaveCount(0);
  await expect
    .poll(() => view.getByRole('img', { name: /^Screen of/ }).evaluate((c: HTMLCanvasElement) => c.width), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await expect(owner.page.getByLabel('Watching')).toContainText('Customer (shared link)');

  // The same link in a frame of another site's page.
  const site = await partnerSite(link);
  const partner = await guest.newPage();
  await partner.goto(site.url);
  await expect(partner.frameLocator('iframe').getByText('Watching through a shared link')).toBeVisible({ timeout: 15_000 });
  await partner.close();
  site.close();

  // Every other portal page still refuses to be framed.
  const signin = await guest.request.get(link.replace(/\/embed\/.*$/, '/signin'));
  expect(signin.headers()['x-frame-options']).toBe('DENY');

  // Revoked from the dialog: the open views end at once, and the link says so after.
  await owner.page.getByRole('button', { name: 'Share' }).click();
  const dialog = owner.page.getByRole('dialog', { name: 'Share this browser' });
  const row = dialog.getByRole('listitem').filter({ hasText: 'Customer' });
  await expect(row).toContainText('watch');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toHaveCount(0);
  await expect(view.getByText('the link was revoked')).toBeVisible();
  await view.reload();
  await expect(view.getByRole('heading', { name: 'This link was revoked' })).toBeVisible();
  expect((await guest.request.get(link.replace('/embed/', '/api/embed/'))).status()).toBe(410);

  // Past its time, a link says it has expired.
  const made = await owner.page.request.post(`/api/teams/${teamId}/browsers/${instanceId}/links`, { data: { minutes: 5 } });
  const { link: aged, url } = (await made.json()) as { link: { id: string }; url: string };
  const db = new DatabaseSync(join(E2E_DATA_DIR, 'portal.db'));
  db.prepare('UPDATE live_links SET expires_at = 1 WHERE id = ?').run(aged.id);
  db.close();
  await view.goto(url);
  await expect(view.getByRole('heading', { name: 'This link has expired' })).toBeVisible();

  // Bad requests are refused with their reasons; another team's member gets nothing.
  const bad = await owner.page.request.post(`/api/teams/${teamId}/browsers/${instanceId}/links`, { data: { minutes: 3, mode: 'drive' } });
  expect(bad.status()).toBe(400);
  const outsider = await userSession(browser, 'outsider');
  await createTeam(outsider.page, 'Outsiders');
  expect((await outsider.page.request.get(`/api/teams/${teamId}/browsers/${instanceId}/links`)).status()).toBe(404);
  expect((await outsider.page.request.post(`/api/teams/${teamId}/browsers/${instanceId}/links`, { data: {} })).status()).toBe(404);
  expect((await outsider.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}/links/${aged.id}`)).status()).toBe(404);

  // When the browser ends, so does every link to it.
  const last = await owner.page.request.post(`/api/teams/${teamId}/browsers/${instanceId}/links`, { data: {} });
  const lastUrl = ((await last.json()) as { url: string }).url;
  await view.goto(lastUrl);
  await expect(view.getByText('Watching through a shared link')).toBeVisible();
  expect((await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`)).ok()).toBe(true);
  await expect(view.getByText('This browser has ended').first()).toBeVisible();
  await view.reload();
  await expect(view.getByRole('heading', { name: 'This browser has ended' })).toBeVisible();

  // The audit log has the links made and revoked.
  await owner.page.goto(`/teams/${teamId}/audit`);
  const log = owner.page.getByRole('table', { name: 'Audit log' });
  await expect(log.getByRole('row').filter({ hasText: 'Shared a link to browser' }).filter({ hasText: 'Customer' })).toContainText(
    '“Customer”, watch only, until',
  );
  await expect(log.getByRole('row').filter({ hasText: 'Revoked a link to browser' })).toContainText('“Customer”');
  await guest.close();
});
