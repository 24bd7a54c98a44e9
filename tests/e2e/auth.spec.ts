import { expect, test } from '@playwright/test';
import { E2E_MAX_FAILURES } from '../helpers/portal-env.ts';
import { newUser, reloadWithScriptsHeld, signIn, signOut, signUp, untilHydrated } from '../helpers/portal.ts';

test.describe('accounts', () => {
  test('sign up with inline validation, sign out, sign in', async ({ page }) => {
    const user = newUser('ada');
    await page.goto('/signup');
    await page.getByLabel('Email', { exact: true }).fill('not-an-email');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Password', { exact: true }).blur();
    await expect(page.getByText('Use at least 10 characters.')).toBeVisible();
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('Enter your name.')).toBeVisible();
    await expect(page.getByText('Enter a valid email address.')).toBeVisible();
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(page).toHaveURL(/\/signup$/);

    await signUp(page, user);
    await expect(page.getByRole('heading', { name: 'API keys', exact: true })).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Current team' })).toHaveValue(/^team_/);

    await signOut(page);
    await page.goto('/');
    await expect(page).toHaveURL(/\/signin$/);
    await signIn(page, user);
    await expect(page.getByText(user.email)).toBeVisible();
  });

  test('a wrong password is refused without saying which part was wrong', async ({ page }) => {
    const user = newUser('wrongpw');
    await signUp(page, user);
    await signOut(page);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert')).toHaveText('Wrong email or password.');
    await page.getByLabel('Email', { exact: true }).fill('nobody-here@example.test');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert')).toHaveText('Wrong email or password.');
    await expect(page).toHaveURL(/\/signin/);
  });

  test('repeated failures lock the account, even for the right password, with a clear message', async ({ page }) => {
    const user = newUser('locked');
    await signUp(page, user);
    await signOut(page);
    const attempt = async (password: string) => {
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeEnabled();
      return page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert').textContent();
    };
    for (let i = 1; i < E2E_MAX_FAILURES; i++) expect(await attempt(`wrong password ${i}`)).toBe('Wrong email or password.');
    expect(await attempt('wrong password again')).toMatch(
      /Too many failed sign-in attempts for this account\. Sign-in is locked; try again in 15 minutes \(at \d\d:\d\d UTC\), or ask an operator to unlock it\./,
    );
    expect(await attempt(user.password)).toMatch(/Too many failed sign-in attempts for this account/);
    await expect(page).toHaveURL(/\/signin/);
  });

  test('the sign-in form works from the keyboard alone', async ({ page }) => {
    const user = newUser('keys');
    await signUp(page, user);
    await signOut(page);
    await page.goto('/signin');
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return (
          el?.getAttribute('aria-label') ??
          (el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null) ??
          el?.textContent ??
          ''
        );
      });
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Continue with Test SSO');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Password');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
  });

  test('dark and light themes, remembered across visits', async ({ page }) => {
    await signUp(page, newUser('theme'));
    const theme = page.getByRole('combobox', { name: 'Theme' });
    await theme.selectOption('dark');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    const darkBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(darkBg);
  });

  test('an email and password filled in before the page has loaded its scripts sign in once they run', async ({ page }) => {
    const user = newUser('early-signin');
    await signUp(page, user);
    await signOut(page);
    const release = await reloadWithScriptsHeld(page);
    const email = page.getByLabel('Email', { exact: true });
    await email.fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    release();
    await untilHydrated(email);
    await page.unrouteAll({ behavior: 'wait' });
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
  });

  test('a theme chosen before the page has loaded its scripts is applied once they run', async ({ page }) => {
    await signUp(page, newUser('early-theme'));
    // The page's scripts held back on the next load, so the select is the server's HTML alone.
    const release = await reloadWithScriptsHeld(page);
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await expect(page.locator('html')).not.toHaveAttribute('data-theme', 'dark'); // no handler yet
    release();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.unrouteAll({ behavior: 'wait' });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark'); // and remembered
  });
});
