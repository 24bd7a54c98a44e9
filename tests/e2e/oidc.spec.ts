import type { Server } from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import Provider from 'oidc-provider';
import { E2E_BASE_URL, E2E_OIDC_CLIENT, E2E_OIDC_ISSUER, E2E_OIDC_PORT } from '../helpers/portal-env.ts';
import { signOut } from '../helpers/portal.ts';

/**
 * OpenID Connect sign-in end to end against a real, certified provider (oidc-provider) run
 * inside this test, with its own login and consent pages. The portal was started with
 * OIDC_ISSUER pointing here: configuration alone switches the provider on.
 */
let server: Server;

test.beforeAll(async () => {
  const provider = new Provider(E2E_OIDC_ISSUER, {
    clients: [
      {
        client_id: E2E_OIDC_CLIENT.id,
        client_secret: E2E_OIDC_CLIENT.secret,
        redirect_uris: [`${E2E_BASE_URL}/api/auth/callback/oidc`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, email: `${id}@sso.example.test`, email_verified: true, name: `SSO ${id}` }) };
    },
    features: { devInteractions: { enabled: true } },
  });
  server = provider.listen(E2E_OIDC_PORT);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Through the provider's own login (and consent) pages, unless it still has a session for us. */
async function ssoSignIn(page: Page, login: string, providerSession = false) {
  await page.goto('/signin');
  await page.getByRole('button', { name: 'Continue with Test SSO' }).click();
  if (providerSession) {
    await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
    return;
  }
  await expect(page).toHaveURL(new RegExp(`^${E2E_OIDC_ISSUER}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.locator('button[type="submit"]').click();
  if (
    await page
      .getByRole('button', { name: /continue/i })
      .isVisible()
      .catch(() => false)
  ) {
    await page.getByRole('button', { name: /continue/i }).click();
  }
  await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
}

test('sign in with OpenID Connect creates the account once, with a personal team', async ({ page }) => {
  const login = `sso-${Date.now().toString(36)}`;
  await ssoSignIn(page, login);
  await expect(page.getByText(`${login}@sso.example.test`)).toBeVisible();
  const firstTeam = page.url();
  const me = (await (await page.request.get('/api/me')).json()) as { user: { id: string; name: string }; teams: { personal: boolean }[] };
  expect(me.user.name).toBe(`SSO ${login}`);
  expect(me.teams.filter((t) => t.personal)).toHaveLength(1);

  // Signed out of the portal only: the provider's session signs us straight back in, as the same user.
  await signOut(page);
  await ssoSignIn(page, login, true);
  expect(page.url()).toBe(firstTeam);
  const again = (await (await page.request.get('/api/me')).json()) as { user: { id: string } };
  expect(again.user.id).toBe(me.user.id);
});

test('an SSO address that already has a password account is not taken over', async ({ page, browser }) => {
  const login = `taken-${Date.now().toString(36)}`;
  const other = await browser.newPage();
  await other.goto('/signup');
  await other.getByLabel('Name', { exact: true }).fill('Password Person');
  await other.getByLabel('Email', { exact: true }).fill(`${login}@sso.example.test`);
  await other.getByLabel('Password', { exact: true }).fill('long enough password');
  await other.getByRole('button', { name: 'Create account' }).click();
  await expect(other).toHaveURL(/\/teams\//);
  await other.close();

  await page.goto('/signin');
  await page.getByRole('button', { name: 'Continue with Test SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.locator('button[type="submit"]').click();
  if (
    await page
      .getByRole('button', { name: /continue/i })
      .isVisible()
      .catch(() => false)
  ) {
    await page.getByRole('button', { name: /continue/i }).click();
  }
  await expect(page).toHaveURL(/\/signin\?error=/);
  await expect(page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert')).toHaveText(
    'An account with this email already exists. Sign in with your password.',
  );
});
