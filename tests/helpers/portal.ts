import { randomBytes } from 'node:crypto';
import { expect, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';

export const PASSWORD = 'correct horse battery staple';

export type TestUser = { name: string; email: string; password: string };

/** A user nobody has used before in this run. */
export function newUser(label = 'user'): TestUser {
  const id = randomBytes(4).toString('hex');
  return { name: `${label[0]?.toUpperCase()}${label.slice(1)} ${id}`, email: `${label}-${id}@example.test`, password: PASSWORD };
}

/** Sign up through the real form; ends on the personal team's keys page. */
export async function signUp(page: Page, user: TestUser): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Name', { exact: true }).fill(user.name);
  await page.getByLabel('Email', { exact: true }).fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
}

export async function signIn(page: Page, user: Pick<TestUser, 'email' | 'password'>): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email', { exact: true }).fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
}

export async function signOut(page: Page): Promise<void> {
  // The button signs out through next-auth's client: a click that lands before the page has
  // hydrated (a loaded machine, right after a navigation) does nothing, so it is clicked again.
  await expect(async () => {
    if (!/\/signin/.test(page.url())) await page.getByRole('button', { name: 'Sign out', exact: true }).click({ timeout: 2000 });
    await expect(page).toHaveURL(/\/signin/, { timeout: 3000 });
  }).toPass({ timeout: 20_000 });
}

/** A fresh browser context (its own cookies) with a newly signed-up user. */
export async function userSession(browser: Browser, label: string): Promise<{ context: BrowserContext; page: Page; user: TestUser }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const user = newUser(label);
  await signUp(page, user);
  return { context, page, user };
}

export const teamIdOf = (page: Page): string => {
  const m = /\/teams\/(team_[\w-]+)/.exec(page.url());
  if (!m?.[1]) throw new Error(`not on a team page: ${page.url()}`);
  return m[1];
};

/** Create a team through the header's "New team" page; returns its id. */
export async function createTeam(page: Page, name: string): Promise<string> {
  await page.getByRole('link', { name: 'New team' }).click();
  await page.getByLabel('Team name').fill(name);
  await page.getByRole('button', { name: 'Create team' }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  return teamIdOf(page);
}

/** Make an invitation link on the members page. */
export async function inviteLink(page: Page, teamId: string, role: 'Member' | 'Admin' = 'Member'): Promise<string> {
  await page.goto(`/teams/${teamId}/members`);
  await page.getByRole('button', { name: 'Invite people' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite to this team' });
  await dialog.getByRole('radio', { name: new RegExp(role) }).check();
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = (await page.getByTestId('invite-link').textContent()) ?? '';
  expect(link).toMatch(/\/invite\/[\w-]{40,}$/);
  await page.getByRole('button', { name: 'Done' }).click();
  return link;
}

/** Join a team through an invitation link. */
export async function joinTeam(page: Page, link: string, team: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('button', { name: `Join ${team}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: team })).toBeVisible();
}

/** Create a key with "Create key"; returns the key shown once and the new row's id. */
export async function createKey(page: Page, teamId: string, name: string): Promise<{ token: string; keyId: string }> {
  await page.goto(`/teams/${teamId}/keys`);
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a key' });
  await dialog.getByLabel('Key name').fill(name);
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const token = (await page.getByTestId('new-key').textContent()) ?? '';
  expect(token).toMatch(/^psk_[0-9a-f]{16}_[\w-]{43}$/);
  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toBeVisible();
  return { token, keyId: (await row.getAttribute('data-key-id')) ?? '' };
}

/**
 * Reloads the page with its scripts held back, so that what is on screen is the server's HTML
 * alone (as on a slow connection, before hydration), and returns what lets them through; the route
 * stays until `page.unrouteAll`.
 */
export async function reloadWithScriptsHeld(page: Page): Promise<() => void> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/_next/static/chunks/**', async (route) => {
    await released;
    await route.continue();
  });
  await page.reload({ waitUntil: 'commit' });
  return release;
}

/** Waits until React has taken `control` over: the page has hydrated it. */
export async function untilHydrated(control: Locator): Promise<void> {
  await expect.poll(() => control.evaluate((el) => Object.keys(el).some((k) => k.startsWith('__reactFiber')))).toBe(true);
}
