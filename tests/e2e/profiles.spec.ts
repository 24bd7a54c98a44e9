import { expect, test } from '@playwright/test';
import { formatBytes, formatDate } from '../../app/_lib/format.ts';
import { E2E_SERVICE_URL } from '../helpers/portal-env.ts';
import { createKey, teamIdOf, userSession } from '../helpers/portal.ts';
import { endAndWaitForSave, listProfiles, startWith } from '../helpers/profiles.ts';

const SERVICE_WS = E2E_SERVICE_URL.replace('http', 'ws');

test.describe('Profiles page', () => {
  test('lists the profiles of the team keys; an owner deletes one after the warning, and the log says who', async ({ browser }) => {
    const owner = await userSession(browser, 'profiles');
    const teamId = teamIdOf(owner.page);
    await owner.page.goto(`/teams/${teamId}/profiles`);
    await expect(owner.page.getByText('No saved profiles yet')).toBeVisible();

    // Two profiles, saved by real persisting browsers of the team's key; one held open again (in use).
    const { token } = await createKey(owner.page, teamId, 'CI nightly');
    for (const name of ['github-login', 'staging.admin'])
      await endAndWaitForSave(E2E_SERVICE_URL, token, await startWith(SERVICE_WS, token, `profile=${name}&persist=1`), name);
    const held = await startWith(SERVICE_WS, token, 'profile=staging.admin&persist=1');
    try {
      await owner.page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Profiles', exact: true }).click();
      await expect(owner.page).toHaveURL(new RegExp(`/teams/${teamId}/profiles$`));
      const table = owner.page.getByRole('table', { name: 'Saved profiles' });
      const github = table.getByRole('row').filter({ hasText: 'github-login' });
      await expect(github).toContainText('CI nightly');
      const stored = (await listProfiles(E2E_SERVICE_URL, token)).find((p) => p.name === 'github-login')!;
      await expect(github).toContainText(formatBytes(stored.bytes));
      await expect(github).toContainText(formatDate(Date.parse(stored.updatedAt)));
      await expect(github).toContainText('Not in use');
      await expect(table.getByRole('row').filter({ hasText: 'staging.admin' })).toContainText('In use');

      // In use: the service refuses, and the dialog says why.
      await owner.page.getByRole('button', { name: 'Delete profile staging.admin of key CI nightly' }).click();
      const dialog = owner.page.getByRole('dialog', { name: 'Delete profile staging.admin?' });
      await dialog.getByRole('button', { name: 'Delete profile' }).click();
      await expect(dialog.getByRole('alert')).toContainText('is in use');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // Cancel keeps it; confirming deletes it at the service.
      await owner.page.getByRole('button', { name: 'Delete profile github-login of key CI nightly' }).click();
      const warn = owner.page.getByRole('dialog', { name: 'Delete profile github-login?' });
      await expect(warn).toContainText('will start empty');
      await warn.getByRole('button', { name: 'Cancel' }).click();
      expect((await listProfiles(E2E_SERVICE_URL, token)).map((p) => p.name)).toContain('github-login');
      await owner.page.getByRole('button', { name: 'Delete profile github-login of key CI nightly' }).click();
      await warn.getByRole('button', { name: 'Delete profile' }).click();
      await expect(warn).toBeHidden();
      await expect(table.getByRole('row').filter({ hasText: 'github-login' })).toHaveCount(0);
      expect((await listProfiles(E2E_SERVICE_URL, token)).map((p) => p.name)).not.toContain('github-login');

      await owner.page.goto(`/teams/${teamId}/audit`);
      await expect(owner.page.getByRole('row').filter({ hasText: 'Deleted browser profile' })).toContainText('github-login');
    } finally {
      held.socket.close();
      await held.closed;
    }
    await owner.context.close();
  });

  test("the start form offers the chosen key's saved profiles, read only once the profile field is focused, and starts from one", async ({
    browser,
  }) => {
    const owner = await userSession(browser, 'start-profiles');
    const teamId = teamIdOf(owner.page);
    const { token, keyId } = await createKey(owner.page, teamId, 'CI nightly');
    await endAndWaitForSave(E2E_SERVICE_URL, token, await startWith(SERVICE_WS, token, 'profile=github-login&persist=1'), 'github-login');
    const spare = await createKey(owner.page, teamId, 'Spare');
    const reads: string[] = [];
    owner.page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/api/teams/${teamId}/profiles`) reads.push(r.method());
    });

    // The page comes without the names: neither its HTML nor a request of its own carries them.
    const page = await owner.page.goto(`/teams/${teamId}/browsers`);
    expect(await page?.text()).not.toContain('github-login');
    const field = owner.page.getByLabel('Profile (optional)');
    await expect(field).toBeVisible();
    await owner.page.waitForLoadState('networkidle');
    expect(reads).toEqual([]);
    const offered = owner.page.locator('#browser-profiles option');
    await expect(offered).toHaveCount(0);

    // Focused, the field reads them once and offers the chosen key's; another key offers its own (none).
    await owner.page.getByLabel('API key').selectOption(keyId);
    await field.focus();
    await expect(offered).toHaveCount(1);
    await expect(offered).toHaveAttribute('value', 'github-login');
    await owner.page.getByLabel('API key').selectOption(spare.keyId);
    await expect(offered).toHaveCount(0);
    await owner.page.getByLabel('API key').selectOption(keyId);
    await expect(offered).toHaveCount(1);
    await field.blur();
    await field.focus();
    expect(reads).toEqual(['GET']);

    // The chosen name starts a browser from the profile, saving back into it: the service holds it in use.
    await field.fill('github-login');
    await owner.page.getByLabel('Save changes back to it when the browser ends').check();
    await owner.page.getByRole('button', { name: 'Start browser' }).click();
    await expect(owner.page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
    const instanceId = /\/browsers\/(inst_[\w-]+)$/.exec(owner.page.url())![1]!;
    expect((await listProfiles(E2E_SERVICE_URL, token)).find((p) => p.name === 'github-login')?.inUse).toBe(true);
    expect((await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`)).status()).toBe(200);
    await owner.context.close();
  });
});
