import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { createKey, createTeam, inviteLink, userSession } from '../helpers/portal.ts';
import { appRoutes, fill } from '../helpers/portal-routes.ts';

const routes = appRoutes(join(process.cwd(), 'app'));
const bodyFor = (method: string) =>
  method === 'GET' || method === 'DELETE' ? undefined : { name: 'Taken over', role: 'owner', mode: 'create', default: true, teamId: 'x' };

test('a member of one team can neither read nor change anything of another, through any route', async ({ browser }) => {
  const alice = await userSession(browser, 'alice');
  const bob = await userSession(browser, 'bob');
  const teamA = await createTeam(alice.page, 'Alpha');
  const teamB = await createTeam(bob.page, 'Bravo');
  const { keyId } = await createKey(alice.page, teamA, 'Alpha key');
  await inviteLink(alice.page, teamA, 'Member');
  const aliceId = ((await (await alice.page.request.get('/api/me')).json()) as { user: { id: string } }).user.id;
  const inviteId =
    ((await (await alice.page.request.get(`/api/teams/${teamA}/invites`)).json()) as { invites: { id: string }[] }).invites[0]?.id ?? '';
  expect(inviteId).toMatch(/^inv_/);
  const snapshot = async () =>
    Promise.all([
      alice.page.request.get(`/api/teams/${teamA}`).then((r) => r.json()),
      alice.page.request.get(`/api/teams/${teamA}/members`).then((r) => r.json()),
      alice.page.request.get(`/api/teams/${teamA}/keys`).then((r) => r.json()),
      alice.page.request.get(`/api/teams/${teamA}/invites`).then((r) => r.json()),
    ]);
  const before = await snapshot();

  // Every team-scoped API route, every method, with Alpha's ids: Bob gets 404 as if nothing existed.
  const ids = { teamId: teamA, keyId, userId: aliceId, inviteId };
  const tried: string[] = [];
  for (const r of routes.filter((x) => x.kind === 'api' && x.pattern.startsWith('/api/teams/[teamId]'))) {
    for (const method of r.methods) {
      const path = fill(r.pattern, ids);
      const res = await bob.page.request.fetch(path, { method, data: bodyFor(method), failOnStatusCode: false });
      expect(res.status(), `${method} ${path}`).toBe(404);
      expect(JSON.stringify(await res.json()), `${method} ${path}`).not.toMatch(/Alpha/);
      tried.push(`${method} ${r.pattern}`);
      // Routes naming one of Alpha's things (a key, member, invitation...) find nothing under Bob's own team either.
      if ((r.pattern.match(/\[\w+\]/g) ?? []).length > 1) {
        const own = fill(r.pattern, { ...ids, teamId: teamB });
        const res2 = await bob.page.request.fetch(own, { method, data: bodyFor(method), failOnStatusCode: false });
        expect(res2.status(), `${method} ${own}`).toBe(404);
      }
    }
  }
  expect(tried.length).toBeGreaterThanOrEqual(14);
  expect((await bob.page.request.put('/api/me/current-team', { data: { teamId: teamA } })).status()).toBe(404);

  // Every team page of Alpha shows Bob the not-found page, naming nothing of Alpha.
  for (const r of routes.filter((x) => x.kind === 'page' && x.pattern.startsWith('/teams/[teamId]'))) {
    await bob.page.goto(fill(r.pattern, ids));
    await expect(bob.page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
    expect(await bob.page.content()).not.toContain('Alpha');
  }
  await expect(bob.page.getByRole('combobox', { name: 'Current team' }).getByRole('option', { name: 'Alpha' })).toHaveCount(0);

  // Nothing of Alpha changed.
  expect(await snapshot()).toEqual(before);
  await alice.context.close();
  await bob.context.close();
});
