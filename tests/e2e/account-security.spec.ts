import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { expect, test } from '@playwright/test';
import { LIVE_PROTOCOL_VERSION } from '#portal/protocol/live.ts';
import { E2E_BASE_URL, E2E_DATA_DIR, e2eEnv } from '../helpers/portal-env.ts';
import { createKey, createTeam, inviteLink, joinTeam, newUser, signIn, signOut, signUp, teamIdOf, userSession } from '../helpers/portal.ts';
import { portalSocket, type Watched } from '../helpers/portal-sockets.ts';

/** The operator command, run against the end-to-end run's DATA_DIR. */
function portalUsers(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['server/cli/portal-users.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...e2eEnv, DATA_DIR: E2E_DATA_DIR },
  });
}

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
      const spellings = [
        `/%09/127.0.0.1:${trapPort}/`,
        `//127.0.0.1:${trapPort}/`,
        `/%5C127.0.0.1:${trapPort}/`,
        `/%0A/127.0.0.1:${trapPort}/`,
        `http://127.0.0.1:${trapPort}/`,
      ];
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

test.describe('sessions end on the server', () => {
  test('signing out ends every copy of the session: pages, API and sockets', async ({ browser }) => {
    const a = await userSession(browser, 'copy');
    const teamId = teamIdOf(a.page);
    const copy = await browser.newContext({ storageState: await a.context.storageState() });
    const cp = await copy.newPage();
    await cp.goto(`/teams/${teamId}/keys`);
    await expect(cp.getByText(a.user.email)).toBeVisible(); // the copied cookie works: the test can see a live session
    const dashboard = await portalSocket(copy, `/events/${teamId}`);

    await signOut(a.page);
    expect(await dashboard.closed).toBe(4401);
    await cp.goto(`/teams/${teamId}/keys`);
    await expect(cp).toHaveURL(/\/signin/);
    expect((await copy.request.get('/api/me')).status()).toBe(401);
    const nextAuth = await copy.request.get('/api/auth/session');
    expect(await nextAuth.json(), "next-auth's own session route gives nothing").toEqual({});
    expect(nextAuth.headers()['set-cookie'] ?? '', 'and clears the cookie instead of renewing it').toMatch(/session-token=;/);
    await expect(portalSocket(copy, `/events/${teamId}`)).rejects.toThrow(/401/);
    await signIn(a.page, a.user);
    await copy.close();
    await a.context.close();
  });

  test('a new password ends the other sessions and keeps this one', async ({ browser }) => {
    const a = await userSession(browser, 'newpw');
    const copy = await browser.newContext({ storageState: await a.context.storageState() });
    expect((await copy.request.get('/api/me')).status()).toBe(200);

    await a.page.goto('/account');
    const form = a.page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password', { exact: true }).fill('a completely new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByText('That is not your current password.')).toBeVisible();
    expect((await copy.request.get('/api/me')).status(), 'a refused change ends nothing').toBe(200);

    await form.getByLabel('Current password').fill(a.user.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(a.page.getByText('Password changed. Every other session of your account has ended.')).toBeVisible();
    expect((await copy.request.get('/api/me')).status()).toBe(401);
    await a.page.reload();
    await expect(a.page.getByRole('heading', { name: 'Your account' })).toBeVisible();

    await signOut(a.page);
    await a.page.getByLabel('Email', { exact: true }).fill(a.user.email);
    await a.page.getByLabel('Password', { exact: true }).fill(a.user.password);
    await a.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(a.page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert')).toHaveText('Wrong email or password.');
    await signIn(a.page, { email: a.user.email, password: 'a completely new passphrase' });
    await copy.close();
    await a.context.close();
  });

  test('"Sign out everywhere" ends this session and every other', async ({ browser }) => {
    const a = await userSession(browser, 'everywhere');
    const copy = await browser.newContext({ storageState: await a.context.storageState() });
    await a.page.goto('/account');
    await a.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(a.page).toHaveURL(/\/signin/);
    expect((await a.page.request.get('/api/me')).status()).toBe(401);
    expect((await copy.request.get('/api/me')).status()).toBe(401);
    await copy.close();
    await a.context.close();
  });
});

test.describe('membership changes reach open sockets', () => {
  test('a member removed from a team loses its live view and dashboard at once', async ({ browser }) => {
    const owner = await userSession(browser, 'boss');
    const teamId = await createTeam(owner.page, 'Live crew');
    await createKey(owner.page, teamId, 'crew key');
    const link = await inviteLink(owner.page, teamId, 'Member');
    const member = await userSession(browser, 'crewmate');
    await joinTeam(member.page, link, 'Live crew');
    const memberId = ((await (await member.page.request.get('/api/me')).json()) as { user: { id: string } }).user.id;

    const started = await owner.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Shared' } });
    expect(started.ok(), await started.text()).toBe(true);
    const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
    try {
      const live = await portalSocket(member.context, `/live/${instanceId}`);
      live.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, viewport: { width: 800, height: 600 }, takeControl: true }));
      const controller = () =>
        (live.messages as { type: string; controllerId?: string | null }[]).filter((m) => m.type === 'state').at(-1)?.controllerId;
      await expect.poll(controller).toMatch(/^v_/); // the member holds control: their commands would run
      const dashboard = await portalSocket(member.context, `/events/${teamId}`);

      const removed = await owner.page.request.delete(`/api/teams/${teamId}/members/${memberId}`);
      expect(removed.ok(), await removed.text()).toBe(true);
      expect(await live.closed).toBe(4403);
      expect(await dashboard.closed).toBe(4403);
      await expect(portalSocket(member.context, `/live/${instanceId}`)).rejects.toThrow(/404/);
      await expect(portalSocket(member.context, `/events/${teamId}`)).rejects.toThrow(/404/);
    } finally {
      await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`);
      await owner.context.close();
      await member.context.close();
    }
  });
});

test.describe('changes made elsewhere reach open sockets', () => {
  test('a new role reaches an open dashboard at once: what the member may do is shown again', async ({ browser }) => {
    const owner = await userSession(browser, 'promoter');
    const teamId = await createTeam(owner.page, 'Role crew');
    await createKey(owner.page, teamId, 'role key');
    const link = await inviteLink(owner.page, teamId, 'Member');
    const member = await userSession(browser, 'promoted');
    await joinTeam(member.page, link, 'Role crew');
    const memberId = ((await (await member.page.request.get('/api/me')).json()) as { user: { id: string } }).user.id;
    const started = await owner.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Owned' } });
    expect(started.ok(), await started.text()).toBe(true);
    const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
    try {
      const dashboard = await portalSocket(member.context, `/events/${teamId}`);
      type Snapshot = { type: string; instances?: { id: string; canStop: boolean }[] };
      const canStop = () =>
        (dashboard.messages as Snapshot[])
          .filter((m) => m.type === 'snapshot')
          .at(-1)
          ?.instances?.find((i) => i.id === instanceId)?.canStop;
      await expect.poll(canStop, { message: "a member may not stop the owner's browser" }).toBe(false);
      const promoted = await owner.page.request.patch(`/api/teams/${teamId}/members/${memberId}`, { data: { role: 'admin' } });
      expect(promoted.ok(), await promoted.text()).toBe(true);
      await expect.poll(canStop, { message: 'an admin may' }).toBe(true);
      dashboard.ws.close();
    } finally {
      await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`);
      await owner.context.close();
      await member.context.close();
    }
  });

  test("an operator's sign-out from the command line ends open live views and dashboards of the running portal", async ({ browser }) => {
    const a = await userSession(browser, 'cli-out');
    const teamId = teamIdOf(a.page);
    await createKey(a.page, teamId, 'cli key');
    const started = await a.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Mine' } });
    expect(started.ok(), await started.text()).toBe(true);
    const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
    try {
      const live = await portalSocket(a.context, `/live/${instanceId}`);
      live.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, viewport: { width: 800, height: 600 }, takeControl: true }));
      await expect.poll(() => (live.messages as { type: string }[]).some((m) => m.type === 'state')).toBe(true);
      const dashboard = await portalSocket(a.context, `/events/${teamId}`);

      const out = portalUsers('sign-out', a.user.email);
      expect(out.status, out.stderr).toBe(0);
      expect(await live.closed).toBe(4401);
      expect(await dashboard.closed).toBe(4401);
    } finally {
      await signIn(a.page, a.user);
      await a.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`);
      await a.context.close();
    }
  });
});

test.describe('accounts people expect', () => {
  test('change name and email; the new email signs in, the old one does not', async ({ page }) => {
    const user = newUser('rename');
    await signUp(page, user);
    await page.goto('/account');
    const form = page.getByRole('form', { name: 'Name and email' });
    await form.getByLabel('Name').fill('New Name');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('Saved.')).toBeVisible();

    const email = `moved-${user.email}`;
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Current password').fill('wrong password here');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('That is not your current password.')).toBeVisible();
    await form.getByLabel('Current password').fill(user.password);
    await form.getByRole('button', { name: 'Save' }).click();
    // The account link shows the email (on a phone the word Account in its place, hidden here).
    await expect(page.getByRole('link', { name: /Your account/ })).toHaveAccessibleName(`Your account: ${email}`);
    await expect(page.getByRole('link', { name: /Your account/ }).locator('.hide-sm')).toHaveText(email);
    await signOut(page);
    await signIn(page, { email, password: user.password });
  });

  test('delete an account: refused while it alone owns a shared team, then done', async ({ page, browser }) => {
    const user = newUser('leaving');
    await signUp(page, user);
    const teamId = await createTeam(page, 'Left behind');
    const link = await inviteLink(page, teamId, 'Member');
    const other = await userSession(browser, 'stays');
    await joinTeam(other.page, link, 'Left behind');

    await page.goto('/account');
    await page.getByRole('button', { name: 'Delete account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await expect(dialog.getByText('You are the only owner of "Left behind".', { exact: false })).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(`/teams/${teamId}/members`);
    await page.getByRole('combobox', { name: `Role of ${other.user.email}` }).selectOption('owner');
    await expect(page.getByRole('combobox', { name: `Role of ${other.user.email}` })).toHaveValue('owner');

    await page.goto('/account');
    await page.getByRole('button', { name: 'Delete account…' }).click();
    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('form', { name: 'Sign in with email' }).getByRole('alert')).toHaveText('Wrong email or password.');

    await other.page.goto(`/teams/${teamId}/members`);
    await expect(other.page.getByRole('row').filter({ hasText: user.email })).toHaveCount(0);
    await other.page.goto(`/teams/${teamId}/audit`);
    await expect(other.page.getByRole('row').filter({ hasText: 'account deleted' })).toContainText(user.email);
    await other.context.close();
  });

  test("an operator's reset link and unlock, from the command line", async ({ page }) => {
    const user = newUser('forgot');
    await signUp(page, user);
    await signOut(page);
    expect(portalUsers('unlock', user.email).stdout).toMatch(/had no failed attempts/);
    const printed = portalUsers('reset-link', user.email);
    expect(printed.status, printed.stderr).toBe(0);
    const link = /(http:\/\/\S+\/reset\/[\w-]{43})/.exec(printed.stdout)?.[1] ?? '';
    expect(link).not.toBe('');

    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await expect(page.getByText('Use at least 10 characters.')).toBeVisible();
    await page.getByLabel('New password', { exact: true }).fill('the password I now remember');
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await expect(page).toHaveURL(/\/teams\/team_[\w-]+\/keys$/);

    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('trying the same link again');
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await expect(page.getByText(/This reset link is not valid any more/)).toBeVisible();
  });

  test('sign-up says the same for a taken address and a new one', async ({ page, browser }) => {
    const owner = newUser('taken');
    await signUp(page, owner);
    const other = await browser.newPage();
    const attempts: number[] = [];
    other.on('response', (r) => {
      if (r.url().endsWith('/api/signup')) attempts.push(r.status());
    });
    await other.goto('/signup');
    await other.getByLabel('Name', { exact: true }).fill('Someone Else');
    await other.getByLabel('Email', { exact: true }).fill(owner.email);
    await other.getByLabel('Password', { exact: true }).fill('another long password');
    await other.getByRole('button', { name: 'Create account' }).click();
    await expect(other.getByText(/We could not sign you in with this email and password/)).toBeVisible();
    expect(attempts).toEqual([200]);
    await other.close();
    // The owner's account is untouched.
    await signOut(page);
    await signIn(page, owner);
  });
});

test.describe('the audit log', () => {
  test('records browser starts and stops, control handovers and key use; filters by kind and person; exports CSV', async ({ browser }) => {
    const owner = await userSession(browser, 'auditor');
    const teamId = await createTeam(owner.page, 'Audited');
    await createKey(owner.page, teamId, 'audit key');
    const link = await inviteLink(owner.page, teamId, 'Member');
    const member = await userSession(browser, 'watcher');
    await joinTeam(member.page, link, 'Audited');

    const started = await owner.page.request.post(`/api/teams/${teamId}/browsers`, { data: { name: 'Audited browser' } });
    expect(started.ok(), await started.text()).toBe(true);
    const instanceId = ((await started.json()) as { browser: { id: string } }).browser.id;
    type State = { type: string; viewers?: { id: string; name: string; control: boolean }[] };
    const states = (w: Watched) => (w.messages as State[]).filter((m) => m.type === 'state');
    const mine = await portalSocket(owner.context, `/live/${instanceId}`);
    mine.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, takeControl: true }));
    await expect.poll(() => states(mine).at(-1)?.viewers?.length).toBe(1);
    const theirs = await portalSocket(member.context, `/live/${instanceId}`);
    theirs.ws.send(JSON.stringify({ type: 'hello', v: LIVE_PROTOCOL_VERSION, takeControl: true }));
    await expect.poll(() => states(mine).at(-1)?.viewers?.length).toBe(2);
    const watcher = states(mine)
      .at(-1)
      ?.viewers?.find((v) => v.name === member.user.name);
    expect(watcher?.control).toBe(false);
    mine.ws.send(JSON.stringify({ type: 'control', action: 'grant', viewerId: watcher?.id }));
    await expect
      .poll(
        () =>
          states(mine)
            .at(-1)
            ?.viewers?.find((v) => v.id === watcher?.id)?.control,
      )
      .toBe(true);
    mine.ws.close();
    theirs.ws.close();
    expect((await owner.page.request.delete(`/api/teams/${teamId}/browsers/${instanceId}`)).ok()).toBe(true);

    const page = owner.page;
    await page.goto(`/teams/${teamId}/audit`);
    const log = page.getByRole('table', { name: 'Audit log' });
    await expect(log.getByRole('row').filter({ hasText: 'Stopped browser' })).toContainText(`stopped by ${owner.user.name}`);
    await expect(log.getByRole('row').filter({ hasText: 'Started browser' })).toContainText('with key audit key');
    // (Closing the two sockets may pass control back too, in either order: that is a handover of its own.)
    await expect(log.getByRole('row').filter({ hasText: `${owner.user.name} → ${member.user.name}` })).toContainText(
      'Control of browser passed',
    );
    await expect(log.getByRole('row').filter({ hasText: 'Used key from the portal' })).toContainText('for browser');

    await page.getByLabel('Kind').selectOption('browsers');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(/kind=browsers/);
    await expect(log.getByRole('row')).toHaveCount(3); // header, started, stopped
    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('Person').selectOption({ label: member.user.email });
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = log.getByRole('row');
    await expect(rows.filter({ hasText: 'Joined' })).toHaveCount(1);
    await expect(rows.filter({ hasText: 'Control of browser passed' })).toHaveCount(1);
    await expect(rows.filter({ hasText: 'Started browser' })).toHaveCount(0);

    const csv = await page.request.get(`/api/teams/${teamId}/audit/csv?kind=browsers`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(csv.headers()['content-disposition']).toMatch(/attachment; filename="audit-team_[\w-]+-\d{4}-\d\d-\d\d\.csv"/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('"time","actor","kind","action","description","subject","details"');
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(['"browser.stopped"', '"browser.started"']);
    expect((await page.request.get(`/api/teams/${teamId}/audit/csv?kind=nonsense`)).status()).toBe(400);
    expect((await member.page.request.get(`/api/teams/${teamId}/audit/csv`)).status(), 'members may not read the log').toBe(403);
    await owner.context.close();
    await member.context.close();
  });
});
