import { expect, test, type Page } from '@playwright/test';
import { createKey, createTeam, inviteLink, newUser, signUp, userSession } from '../helpers/portal.ts';

/**
 * Taking control end to end: a member has control of a browser and ignores the owner's question;
 * after a while the owner is offered "Take control", takes it at once, and the member is told who
 * took it. A member who asks is never offered the same.
 */
test.describe.configure({ mode: 'serial' });

/** The page at a laptop's and a phone's size, kept with the test's results for a person to look at. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: test.info().outputPath(`${name}-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('an owner whose question goes unanswered takes control; the member who had it is told; a member is never offered it', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const owner = newUser('otto');
  await signUp(page, owner);
  const teamId = await createTeam(page, 'Takeover crew');
  await createKey(page, teamId, 'crew key');
  const link = await inviteLink(page, teamId, 'Member');
  const member = await userSession(browser, 'mia');
  await member.page.goto(link);
  await member.page.getByRole('button', { name: 'Join Takeover crew' }).click();
  await expect(member.page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));

  // The member starts a browser and has control of it.
  await member.page.goto(`/teams/${teamId}/browsers`);
  await member.page.getByLabel('Name').fill('Shared browser');
  await member.page.getByRole('button', { name: 'Start browser' }).click();
  await expect(member.page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  const liveUrl = member.page.url();
  await expect(member.page.getByTestId('control-status')).toHaveText(/You have control/);

  // The owner asks; nothing to take at first, then "Take control" once the question has waited.
  await page.goto(liveUrl);
  await expect(page.getByTestId('control-status')).toHaveText(new RegExp(`${member.user.name} has control`));
  await page.getByRole('button', { name: 'Ask for control' }).click();
  const waiting = page.getByRole('status').filter({ hasText: 'Waiting for' });
  await expect(waiting).toBeVisible();
  await expect(waiting.getByRole('button', { name: 'Take control' })).toHaveCount(0);
  await expect(member.page.getByRole('button', { name: `Give control to ${owner.name}` })).toBeVisible();
  await expect(waiting.getByRole('button', { name: 'Take control' })).toBeVisible({ timeout: 20_000 });
  await shots(page, 'take-offered');

  await waiting.getByRole('button', { name: 'Take control' }).click();
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);
  await expect(member.page.getByTestId('control-status')).toHaveText(new RegExp(`${owner.name} has control`));
  const notice = member.page.getByRole('alert').filter({ hasText: 'took control' });
  await expect(notice).toHaveText(new RegExp(`${owner.name} took control of this browser`));
  await shots(member.page, 'taken-notice');

  // The member asks back and waits as long: no "Take control" for a member.
  await member.page.getByRole('button', { name: 'Ask for control' }).click();
  const memberWaiting = member.page.getByRole('status').filter({ hasText: 'Waiting for' });
  await expect(memberWaiting).toBeVisible();
  await member.page.waitForTimeout(12_000);
  await expect(memberWaiting.getByRole('button', { name: 'Take control' })).toHaveCount(0);
  // The owner hands it back; the notice goes with control's return.
  await page.getByRole('button', { name: `Give control to ${member.user.name}` }).click();
  await expect(member.page.getByTestId('control-status')).toHaveText(/You have control/);
  await expect(notice).toHaveCount(0);

  // The team's audit log has the take under the owner.
  await page.goto(`/teams/${teamId}/audit`);
  await expect(page.getByRole('row').filter({ hasText: 'Took control of browser' })).toContainText(owner.name);

  // The member's view closes; the owner stops the browser.
  await member.context.close();
  await page.goto(liveUrl);
  await page.getByRole('button', { name: 'Stop Shared browser' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));
});

test('a secure page the service cannot reach names its network, and a private one names BROWSER_EGRESS_ALLOW', async ({ page }) => {
  await signUp(page, newUser('egress'));
  const teamId = await createTeam(page, 'Egress crew');
  await createKey(page, teamId, 'egress key');
  await page.goto(`/teams/${teamId}/browsers`);
  await page.getByLabel('Name').fill('Egress browser');
  await page.getByRole('button', { name: 'Start browser' }).click();
  await expect(page).toHaveURL(/\/browsers\/inst_[\w-]+$/);
  await expect(page.getByTestId('control-status')).toHaveText(/You have control/);

  // A name that does not resolve from the service's machine, as any public name where it has no way out.
  await page.getByLabel('Address').fill('https://nowhere.invalid/');
  await page.getByLabel('Address').press('Enter');
  const problem = page.getByRole('alert').filter({ hasText: 'nowhere.invalid was not found' });
  await expect(problem).toContainText('cannot resolve names on the internet');
  await expect(problem).toContainText('BROWSER_EGRESS_ALLOW does not help here');
  await shots(page, 'egress-no-route');

  // A private address: refused by the policy, which the operator can open.
  await page.getByLabel('Address').fill('https://10.255.255.1/');
  await page.getByLabel('Address').press('Enter');
  const blocked = page.getByRole('alert').filter({ hasText: 'Blocked: 10.255.255.1' });
  await expect(blocked).toContainText('BROWSER_EGRESS_ALLOW=10.0.0.0/8');
  await shots(page, 'egress-private');

  await page.getByRole('button', { name: 'Stop Egress browser' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/browsers$`));
});
