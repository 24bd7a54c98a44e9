import { expect, test } from '@playwright/test';
import { createKey, createTeam, inviteLink, newUser, signUp, userSession } from '../helpers/portal.ts';

const PASSWORD = 'pr0xy-Secret';

test('owners keep proxies on the settings page, members choose them, the form starts a browser with a lifetime', async ({
  page,
  browser,
}) => {
  await signUp(page, newUser('ada'));
  const teamId = await createTeam(page, 'Proxy crew');
  await createKey(page, teamId, 'crew key');

  // A bad address is refused in the form with the reason; a good one is listed without its password.
  await page.goto(`/teams/${teamId}/settings`);
  await expect(page.getByText('No proxies yet')).toBeVisible();
  await page.getByLabel('Proxy name').fill('Office');
  await page.getByLabel('Proxy address').fill('ftp://proxy.example.com:21');
  await page.getByRole('button', { name: 'Add proxy' }).click();
  await expect(page.getByText('A proxy address starts with http://, https:// or socks5://.')).toBeVisible();
  await page.getByLabel('Proxy address').fill(`http://alice:${PASSWORD}@proxy.example.com:8080`);
  await page.getByRole('button', { name: 'Add proxy' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Office' });
  await expect(row).toContainText('http://proxy.example.com:8080');
  await expect(row).toContainText('Yes');
  expect(await page.content()).not.toContain(PASSWORD);
  const listed = await page.request.get(`/api/teams/${teamId}/proxies`);
  expect(await listed.text()).not.toContain(PASSWORD);
  const proxyId = ((await listed.json()) as { proxies: { id: string }[] }).proxies[0]!.id;
  // The same name twice is refused, through the API as well.
  const again = await page.request.post(`/api/teams/${teamId}/proxies`, {
    data: { name: 'Office', url: 'socks5://other.example.com:1080' },
  });
  expect(again.status()).toBe(409);

  // A member sees the proxies and can choose one, but neither adds nor deletes.
  const link = await inviteLink(page, teamId, 'Member');
  const bob = await userSession(browser, 'bob');
  await bob.page.goto(link);
  await bob.page.getByRole('button', { name: 'Join Proxy crew' }).click();
  await expect(bob.page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
  await bob.page.goto(`/teams/${teamId}/settings`);
  await expect(bob.page.getByRole('row').filter({ hasText: 'Office' })).toBeVisible();
  await expect(bob.page.getByRole('button', { name: 'Add proxy' })).toHaveCount(0);
  await expect(bob.page.getByRole('button', { name: 'Delete proxy Office' })).toHaveCount(0);
  expect(
    (await bob.page.request.post(`/api/teams/${teamId}/proxies`, { data: { name: 'Mine', url: 'http://h.example.com:1' } })).status(),
  ).toBe(403);
  expect((await bob.page.request.delete(`/api/teams/${teamId}/proxies/${proxyId}`)).status()).toBe(403);
  await bob.page.goto(`/teams/${teamId}/browsers`);
  await expect(bob.page.getByLabel('Proxy')).toContainText('Office (http://proxy.example.com:8080)');

  // Another team cannot start through it.
  const carol = await userSession(browser, 'carol');
  const carolTeam = /\/teams\/(team_[\w-]+)/.exec(carol.page.url())![1]!;
  await createKey(carol.page, carolTeam, 'carol key');
  const foreign = await carol.page.request.post(`/api/teams/${carolTeam}/browsers`, { data: { proxyId } });
  expect(foreign.status()).toBe(404);
  const bad = await carol.page.request.post(`/api/teams/${carolTeam}/browsers`, { data: { lifetimeSeconds: 'soon' } });
  expect(bad.status()).toBe(400);

  // The form starts a browser with a lifetime of its own; the audit log says so.
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name', { exact: true }).fill('Short one');
  await page.getByLabel('Lifetime').selectOption({ label: '5 minutes' });
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  const instanceId = /\/browsers\/(inst_[\w-]+)$/.exec(page.url())![1]!;
  expect((await page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`)).status()).toBe(200);
  await page.goto(`/teams/${teamId}/audit`);
  await expect(page.getByText('for at most 300 s')).toBeVisible();
  await expect(page.getByText('Added proxy')).toBeVisible();

  // Deleting the proxy takes it out of the form.
  await page.goto(`/teams/${teamId}/settings`);
  await page.getByRole('button', { name: 'Delete proxy Office' }).click();
  await expect(page.getByText('No proxies yet')).toBeVisible();
  await carol.context.close();
  await bob.context.close();
});
