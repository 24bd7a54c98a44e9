import { createServer, type Server } from 'node:http';
import { expect, test } from '@playwright/test';
import { E2E_BASE_URL } from '../helpers/portal-env.ts';
import { newUser, signOut, signUp } from '../helpers/portal.ts';

test.describe('sign-in security', () => {
  test('a callback that points off the portal lands on the portal after sign-in', async ({ page }) => {
    // A host the bypass would land on, so a leak shows up as a visit here and not as an error page.
    let visits = 0;
    const trap: Server = createServer((_req, res) => {
      visits++;
      res.end('trap');
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    const trapPort = (trap.address() as { port: number }).port;
    try {
      const user = newUser('redirect');
      await signUp(page, user);
      await signOut(page);
      const spellings = [`/%09/127.0.0.1:${trapPort}/`, `//127.0.0.1:${trapPort}/`, `/%5C127.0.0.1:${trapPort}/`, `/%0A/127.0.0.1:${trapPort}/`, `http://127.0.0.1:${trapPort}/`];
      for (const spelling of spellings) {
        await page.goto(`/signin?callbackUrl=${spelling}`);
        await page.getByLabel('Email', { exact: true }).fill(user.email);
        await page.getByLabel('Password', { exact: true }).fill(user.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);
        expect(new URL(page.url()).origin, spelling).toBe(E2E_BASE_URL);
        await signOut(page);
      }
      // The trap is reachable from this browser: had a spelling got through, it would have counted.
      await page.goto(`http://127.0.0.1:${trapPort}/`);
      expect(visits).toBe(1);
    } finally {
      trap.close();
    }
  });

  test('a same-site callback is kept', async ({ page }) => {
    const user = newUser('callback');
    await signUp(page, user);
    const team = new URL(page.url()).pathname.split('/')[2];
    await signOut(page);
    await page.goto(`/teams/${team}/members`);
    await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(`${E2E_BASE_URL}/teams/${team}/members`);
  });
});
