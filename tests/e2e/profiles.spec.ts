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
});
