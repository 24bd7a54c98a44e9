import { expect, test } from '@playwright/test';
import {
  createTeam,
  inviteLink,
  newUser,
  reloadWithScriptsHeld,
  signIn,
  signOut,
  signUp,
  teamIdOf,
  userSession,
} from '../helpers/portal.ts';

test.describe('teams', () => {
  test('create a team; the team chosen in the header is remembered', async ({ page }) => {
    const user = newUser('owner');
    await signUp(page, user);
    const personal = teamIdOf(page);
    const teamId = await createTeam(page, 'Research');
    const switcher = page.getByRole('combobox', { name: 'Current team' });
    await expect(switcher).toHaveValue(teamId);
    await expect(switcher.getByRole('option')).toHaveText([/\(personal\)$/, 'Research']);

    await switcher.selectOption(personal);
    await expect(page).toHaveURL(new RegExp(`/teams/${personal}/keys$`));
    await page.goto('/');
    await expect(page).toHaveURL(new RegExp(`/teams/${personal}/keys$`));

    await page.getByRole('combobox', { name: 'Current team' }).selectOption(teamId);
    await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
    await signOut(page);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
  });

  test('a team chosen in the header before the page has loaded its scripts is switched to once they run', async ({ page }) => {
    await signUp(page, newUser('early-team'));
    const personal = teamIdOf(page);
    const teamId = await createTeam(page, 'Early');
    await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/`));
    // The page's scripts held back on the next load, so the select is the server's HTML alone.
    const release = await reloadWithScriptsHeld(page);
    await page.getByRole('combobox', { name: 'Current team' }).selectOption(personal);
    await expect(page).toHaveURL(new RegExp(`/teams/${teamId}/`)); // no handler yet
    release();
    await expect(page).toHaveURL(new RegExp(`/teams/${personal}/keys$`));
    await page.unrouteAll({ behavior: 'wait' });
    await page.goto('/');
    await expect(page).toHaveURL(new RegExp(`/teams/${personal}/keys$`)); // and remembered
  });

  test('the new-team form validates inline', async ({ page }) => {
    await signUp(page, newUser('form'));
    await page.goto('/teams/new');
    await page.getByRole('button', { name: 'Create team' }).click();
    await expect(page.getByText('Enter a team name.')).toBeVisible();
    await page.getByLabel('Team name').fill('x'.repeat(61));
    await expect(page.getByText('Use at most 60 characters.')).toBeVisible();
  });

  test('invite with a single-use link, accept it, and see roles applied', async ({ page, browser }) => {
    const inviter = newUser('inviter');
    await signUp(page, inviter);
    const teamId = await createTeam(page, 'Crew');
    const link = await inviteLink(page, teamId, 'Member');
    await expect(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row')).toHaveCount(2);

    // Opened signed out, the link lands on a page that names the team and who invited, and leads
    // through sign-up (which says so too) and back to the invitation.
    const guest = await browser.newContext();
    const gp = await guest.newPage();
    await gp.goto(link);
    await expect(gp).toHaveURL(/\/invite\//);
    await expect(gp.getByRole('heading', { name: 'Join Crew' })).toBeVisible();
    await expect(gp.getByText(`${inviter.name} invited you to join Crew as member.`)).toBeVisible();
    await gp.getByRole('link', { name: 'Create an account to join' }).click();
    await expect(gp.getByText(`Then you join Crew: ${inviter.name} invited you.`)).toBeVisible();
    const member = newUser('member');
    await gp.getByLabel('Name', { exact: true }).fill(member.name);
    await gp.getByLabel('Email', { exact: true }).fill(member.email);
    await gp.getByLabel('Password', { exact: true }).fill(member.password);
    await gp.getByRole('button', { name: 'Create account' }).click();
    await expect(gp.getByText(`${inviter.name} invited you to join Crew as member.`)).toBeVisible();
    await gp.getByRole('button', { name: 'Join Crew' }).click();
    await expect(gp).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
    await expect(gp.getByRole('heading', { level: 1, name: 'Crew' })).toBeVisible();

    // Single use: a third person gets a clear refusal.
    const third = await userSession(browser, 'third');
    await third.page.goto(link);
    await expect(third.page.getByText('This invitation has already been used.')).toBeVisible();
    await expect(third.page.getByRole('button', { name: /Join/ })).toHaveCount(0);
    await third.context.close();

    // The owner sees the new member; the invitation is no longer pending.
    await page.reload();
    await expect(page.getByRole('row').filter({ hasText: member.email })).toContainText('Member');
    await expect(page.getByText('No pending invitations')).toBeVisible();

    // Role limits for a member: no managing controls, and the server refuses the calls.
    await gp.goto(`/teams/${teamId}/members`);
    await expect(gp.getByRole('button', { name: 'Invite people' })).toHaveCount(0);
    await expect(gp.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
    await gp.goto(`/teams/${teamId}/keys`);
    await expect(gp.getByRole('button', { name: 'Create key' })).toHaveCount(0);
    await expect(gp.getByRole('button', { name: 'Add existing key' })).toHaveCount(0);
    const api = gp.request;
    expect((await api.post(`/api/teams/${teamId}/invites`, { data: { role: 'member' } })).status()).toBe(403);
    expect((await api.post(`/api/teams/${teamId}/keys`, { data: { mode: 'create', name: 'sneaky' } })).status()).toBe(403);
    expect((await api.get(`/api/teams/${teamId}/audit`)).status()).toBe(403);
    expect((await api.patch(`/api/teams/${teamId}`, { data: { name: 'Mine now' } })).status()).toBe(403);
    const ownerId = ((await (await page.request.get('/api/me')).json()) as { user: { id: string } }).user.id;
    expect((await api.patch(`/api/teams/${teamId}/members/${ownerId}`, { data: { role: 'member' } })).status()).toBe(403);
    expect((await api.delete(`/api/teams/${teamId}/members/${ownerId}`)).status()).toBe(403);

    // Promoted to admin, the member can invite, but still cannot touch the owner.
    await page.getByRole('combobox', { name: `Role of ${member.email}` }).selectOption('admin');
    await expect(page.getByRole('row').filter({ hasText: member.email })).toContainText('Admin');
    await gp.goto(`/teams/${teamId}/members`);
    await expect(gp.getByRole('button', { name: 'Invite people' })).toBeVisible();
    await expect(gp.getByRole('link', { name: 'Audit log' })).toBeVisible();
    expect((await api.patch(`/api/teams/${teamId}/members/${ownerId}`, { data: { role: 'member' } })).status()).toBe(403);
    expect((await api.patch(`/api/teams/${teamId}/members/${ownerId}`, { data: { role: 'owner' } })).status()).toBe(403);
    await guest.close();

    // The audit log records the membership events.
    await page.goto(`/teams/${teamId}/audit`);
    const log = page.getByRole('table', { name: 'Audit log' });
    await expect(log).toContainText('Created an invitation');
    await expect(log).toContainText(`Joined ${member.email}`);
    await expect(log).toContainText(`Changed role of ${member.email} (member → admin)`);
  });

  test('the last owner cannot leave; after handing over ownership they can', async ({ page, browser }) => {
    const owner = newUser('lastowner');
    await signUp(page, owner);
    const teamId = await createTeam(page, 'Solo');
    await page.goto(`/teams/${teamId}/settings`);
    await page.getByRole('button', { name: 'Leave team' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'A team needs at least one owner' })).toHaveText(
      'A team needs at least one owner. Make someone else an owner first.',
    );

    const link = await inviteLink(page, teamId, 'Admin');
    const heir = await userSession(browser, 'heir');
    await heir.page.goto(link);
    await heir.page.getByRole('button', { name: 'Join Solo' }).click();
    await expect(heir.page).toHaveURL(new RegExp(`/teams/${teamId}/keys$`));
    await page.goto(`/teams/${teamId}/members`);
    await page.getByRole('combobox', { name: `Role of ${heir.user.email}` }).selectOption('owner');
    await expect(page.getByRole('row').filter({ hasText: heir.user.email })).toContainText('Owner');
    await page.getByRole('button', { name: 'Leave team' }).click();
    await page.getByRole('dialog', { name: 'Leave this team?' }).getByRole('button', { name: 'Leave team' }).click();
    await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
    expect(teamIdOf(page)).not.toBe(teamId);
    await expect(page.getByRole('combobox', { name: 'Current team' }).getByRole('option', { name: 'Solo' })).toHaveCount(0);
    await page.goto(`/teams/${teamId}/keys`);
    await expect(page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
    await heir.context.close();
    await signOut(page);
    await signIn(page, owner);
  });
});
