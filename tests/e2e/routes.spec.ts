import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { appRoutes, fill } from '../helpers/portal-routes.ts';

const routes = appRoutes(join(process.cwd(), 'app'));

test.describe('every route requires a session', () => {
  test('the route list is read from app/ and is complete', () => {
    const patterns = routes.map((r) => `${r.kind} ${r.pattern}`);
    for (const known of [
      'page /signin',
      'page /signup',
      'page /',
      'page /teams/[teamId]/keys',
      'page /invite/[token]',
      'api /api/health',
      'api /api/teams/[teamId]/keys/[keyId]',
      'api /api/auth/[...nextauth]',
    ]) {
      expect(patterns).toContain(known);
    }
    expect(routes.filter((r) => !r.public).length).toBeGreaterThanOrEqual(20);
    expect(
      routes
        .filter((r) => r.public)
        .map((r) => r.pattern)
        .sort(),
    ).toEqual([
      '/api/auth/[...nextauth]',
      '/api/embed/[token]',
      '/api/health',
      '/api/reset',
      '/api/signup',
      '/embed/[token]',
      '/invite/[token]',
      '/reset/[token]',
      '/signin',
      '/signup',
    ]);
  });

  test('signed out, every page redirects to sign-in and every API route answers 401', async ({ request }) => {
    const seen: string[] = [];
    for (const r of routes.filter((x) => !x.public)) {
      const path = fill(r.pattern, {});
      for (const method of r.methods) {
        const res = await request.fetch(path, {
          method,
          maxRedirects: 0,
          data: method === 'GET' ? undefined : {},
          failOnStatusCode: false,
        });
        if (r.kind === 'page') {
          expect(res.status(), `${method} ${path}`).toBe(307);
          const location = new URL(res.headers().location ?? '', 'http://x');
          expect(location.pathname, `${method} ${path}`).toBe('/signin');
        } else {
          expect(res.status(), `${method} ${path}`).toBe(401);
          expect(await res.json()).toEqual({ error: 'sign in first', code: 'sign_in_required' });
        }
        seen.push(`${method} ${path}`);
      }
    }
    expect(seen.length).toBeGreaterThanOrEqual(25);
  });

  test('a forged or expired session cookie counts as signed out', async ({ request }) => {
    const cookie = { cookie: 'next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..forged.forged.forged' };
    expect((await request.get('/api/me', { headers: cookie })).status()).toBe(401);
    const page = await request.get('/teams/new', { headers: cookie, maxRedirects: 0 });
    expect(page.status()).toBe(307);
  });

  test('the public routes answer without a session', async ({ request, page }) => {
    expect((await request.get('/api/health')).status()).toBe(200);
    expect((await request.get('/signin')).status()).toBe(200);
    expect((await request.get('/signup')).status()).toBe(200);
    expect((await request.get('/api/auth/providers')).status()).toBe(200);
    expect((await request.get(`/reset/${'A'.repeat(43)}`)).status()).toBe(200);
    const invite = await request.get(`/invite/${'A'.repeat(43)}`, { maxRedirects: 0 });
    expect(invite.status(), 'an invitation link lands on its own page').toBe(200);
    expect(await invite.text()).toContain('This invitation link is not valid.');
    const shared = await request.get(`/embed/${'A'.repeat(43)}`, { maxRedirects: 0 });
    expect(shared.status(), 'a shared browser link lands on its own page').toBe(200);
    expect(await shared.text()).toContain('This link does not open anything');
    expect((await request.get(`/api/embed/${'A'.repeat(43)}`)).status()).toBe(404);
    const reset = await request.post('/api/reset', { data: { token: 'A'.repeat(43), password: 'a long enough password' } });
    expect(reset.status(), 'an unknown reset token is refused').toBe(400);
    expect((await reset.json()).error).toMatch(/This reset link is not valid any more/);
    await page.goto('/teams/some_team/members?tab=1');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fteams%2Fsome_team%2Fmembers%3Ftab%3D1$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });
});
