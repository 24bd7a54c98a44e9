import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { hashToken, newToken } from '#portal/data/ids.ts';
import { createLiveLink, listLiveLinks, resolveLiveLink, revokeLiveLink } from '#portal/live/links.ts';
import type { TeamBrowser, TeamBrowsers } from '#portal/live/team-browsers.ts';
import { LocalDirectory } from '#portal/live/directory.ts';
import { LIVE_CLOSE, type ServerMessage } from '#portal/protocol/live.ts';
import type { Portal } from '#portal/runtime.ts';
import { acceptInvite, createInvite } from '#portal/teams/invites.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { eventually } from '../helpers/browser.ts';
import { LIVE_ORIGIN as ORIGIN, serveLiveSockets, startTeamBrowser } from '../helpers/live-sockets.ts';
import { startPageServer } from '../helpers/pages.ts';
import { account, memoryData } from '../helpers/portal-doubles.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/**
 * Shared links to a live browser (decision 0071), over a real instance: a link's holder, with no
 * session, watches (or, if the link says so, asks for control), and loses the view the moment the
 * link is revoked or expires. The socket is the portal's own; the links are in the real data layer.
 */
describe('shared links to a live browser', () => {
  let service: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let instances: TeamBrowsers;
  let instance: TeamBrowser;
  let server: Awaited<ReturnType<typeof serveLiveSockets>>;
  let base: string;
  const data = memoryData();
  let ann: { userId: string };
  let bob: { userId: string };
  let teamId: string;
  let p: Portal;

  before(async () => {
    service = await startService({ BROWSER_EGRESS_ALLOW: '127.0.0.1/32' });
    pages = await startPageServer();
    ann = await account(data, 'Ann');
    bob = await account(data, 'Bob');
    teamId = (await createTeam(data, ann, { name: 'Crew' })).id;
    const { token } = await createInvite(data, ann, teamId, { role: 'member' }, 60_000);
    await acceptInvite(data, bob, token);
    ({ instances, instance } = await startTeamBrowser(service, { teamId, user: { userId: ann.userId, name: 'Ann' } }));
    const browsers = new LocalDirectory(instances);
    p = { data, live: instances, browsers } as unknown as Portal;
    server = await serveLiveSockets(instances, {
      browsers,
      authenticate: async (req) => (req.headers.cookie === 'session=ann' ? { userId: ann.userId, name: 'Ann', sessionVersion: 0 } : null),
      recheck: async () => 'ok',
      onAccessChange: (listener) => data.onAccessChange(listener),
      resolveLink: (token) => resolveLiveLink(data, browsers, token),
    });
    base = server.base;
  });
  after(async () => {
    await instances.shutdown();
    server.close();
    await pages.close();
    await service.stop();
  });

  type Socket = { ws: WebSocket; messages: ServerMessage[]; frames: number; closed: Promise<number> };
  /** A viewer: a member with the session cookie, or a link's holder with nothing but the address. */
  async function connect(path: string, headers: Record<string, string> = { origin: ORIGIN }): Promise<Socket> {
    const ws = new WebSocket(`${base}${path}`, { headers });
    const s: Socket = { ws, messages: [], frames: 0, closed: new Promise((r) => ws.once('close', (code) => r(code))) };
    ws.on('message', (raw, binary) => (binary ? s.frames++ : s.messages.push(JSON.parse(raw.toString()) as ServerMessage)));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    });
    ws.send(JSON.stringify({ type: 'hello', v: 1 }));
    return s;
  }
  const state = (s: Socket) => s.messages.filter((m) => m.type === 'state').at(-1) as Extract<ServerMessage, { type: 'state' }> | undefined;
  const welcome = (s: Socket) => s.messages.find((m) => m.type === 'welcome') as Extract<ServerMessage, { type: 'welcome' }> | undefined;
  const errors = (s: Socket) => s.messages.filter((m) => m.type === 'error').map((m) => (m as { message: string }).message);
  const refusal = (path: string, headers: Record<string, string> = { origin: ORIGIN }) =>
    connect(path, headers).then(
      () => 'opened',
      (err: Error) => err.message,
    );

  it('lets a watch link see the browser and nothing more, and shows its holder to the team by its label only', async () => {
    const member = await connect(`/live/${instance.id}`, { origin: ORIGIN, cookie: 'session=ann' });
    await eventually(() => welcome(member) && state(member)?.controllerId === welcome(member)?.viewerId, Boolean);
    member.ws.send(JSON.stringify({ type: 'navigate', url: `${pages.url}animated` }));
    const { token } = await createLiveLink(p, ann, teamId, instance.id, { mode: 'watch', minutes: 5, label: 'Customer' });

    const guest = await connect(`/embed/${token}/socket`);
    await eventually(
      () => guest.frames,
      (n) => n > 3,
      10_000,
    );
    const seen = await eventually(
      () => state(guest),
      (s) => (s?.viewers.length ?? 0) === 2,
    );
    assert.deepEqual(
      seen?.viewers.map((v) => v.userId),
      [null, null],
      'an outsider does not learn the team members’ ids',
    );
    assert.ok(state(member)?.viewers.some((v) => v.name === 'Customer (shared link)' && !v.control));

    // Input, navigation, control: all refused, and the page stays where the member put it.
    for (const msg of [
      { type: 'mouse', action: 'down', x: 10, y: 10, button: 'left', clickCount: 1 },
      { type: 'navigate', url: 'https://example.test/' },
      { type: 'control', action: 'request' },
      { type: 'copy' },
    ]) {
      guest.ws.send(JSON.stringify(msg));
    }
    await eventually(
      () => errors(guest).length,
      (n) => n === 4,
    );
    assert.ok(errors(guest).every((m) => m === 'this link only lets you watch'));
    // Even with nobody else to take it, control never passes to a watch link.
    member.ws.send(JSON.stringify({ type: 'control', action: 'release' }));
    await eventually(() => state(guest)?.controllerId === null, Boolean);
    assert.equal(state(guest)?.viewers.find((v) => v.name === 'Customer (shared link)')?.control, false);
    assert.match(state(member)?.tabs.find((t) => t.active)?.url ?? '', /animated/);
    guest.ws.close();
    member.ws.close();
  });

  it('lets a control link ask for control like a teammate', async () => {
    const { token } = await createLiveLink(p, ann, teamId, instance.id, { mode: 'control' });
    const guest = await connect(`/embed/${token}/socket`);
    const id = (await eventually(() => welcome(guest), Boolean))!.viewerId;
    await eventually(() => state(guest)?.controllerId === id, Boolean);
    guest.ws.send(JSON.stringify({ type: 'navigate', url: `${pages.url}?guest` }));
    await eventually(
      () => state(guest)?.tabs.find((t) => t.active)?.url ?? '',
      (u) => u.endsWith('?guest'),
      10_000,
    );
    guest.ws.close();
  });

  it('closes a view the moment its link is revoked, and opens nothing with it after', async () => {
    const { token, link } = await createLiveLink(p, bob, teamId, instance.id, { label: 'Reviewer' });
    const guest = await connect(`/embed/${token}/socket`);
    await eventually(() => state(guest), Boolean);
    assert.deepEqual(
      (await listLiveLinks(p, bob, teamId, instance.id)).find((l) => l.id === link.id)?.canRevoke,
      true,
      'who made it may revoke it',
    );
    await revokeLiveLink(p, bob, teamId, instance.id, link.id);
    assert.equal(await guest.closed, LIVE_CLOSE.linkRevoked.code);
    assert.equal(await refusal(`/embed/${token}/socket`), 'refused with 404');
    assert.equal((await resolveLiveLink(data, p.browsers, token)).status, 'revoked');
    assert.ok(!(await listLiveLinks(p, ann, teamId, instance.id)).some((l) => l.id === link.id));
  });

  it('closes a view when its link expires', async () => {
    const { token, hash } = newToken();
    await data.createLiveLink(
      {
        id: 'lnk_soon',
        teamId,
        instanceId: instance.id,
        tokenHash: hash,
        mode: 'watch',
        label: 'Soon gone',
        createdBy: ann.userId,
        createdAt: Date.now(),
        expiresAt: Date.now() + 1500,
        revokedAt: null,
      },
      { teamId, actorId: ann.userId, action: 'link.created', subject: 'x' },
    );
    const guest = await connect(`/embed/${token}/socket`);
    await eventually(() => state(guest), Boolean);
    assert.equal(await guest.closed, LIVE_CLOSE.linkExpired.code);
    assert.equal((await resolveLiveLink(data, p.browsers, token)).status, 'expired');
    assert.equal(await refusal(`/embed/${token}/socket`), 'refused with 404');
    assert.equal(hashToken(token), hash);
  });

  it('refuses another site, and tokens that open nothing, before the handshake', async () => {
    const { token } = await createLiveLink(p, ann, teamId, instance.id, {});
    assert.equal(await refusal(`/embed/${token}/socket`, { origin: 'http://evil.test' }), 'refused with 403');
    assert.equal(await refusal(`/embed/${token}/socket`, {}), 'refused with 403');
    assert.equal(await refusal(`/embed/${'A'.repeat(43)}/socket`), 'refused with 404');
    assert.equal((await resolveLiveLink(data, p.browsers, 'short')).status, 'invalid');
  });

  it('checks what a link may be and who may make and revoke it', async () => {
    for (const input of [
      { minutes: 1 },
      { minutes: 10_081 },
      { minutes: 5.5 },
      { mode: 'drive' },
      { label: 'x'.repeat(61) },
      { extra: 1 },
      [],
    ]) {
      await assert.rejects(createLiveLink(p, ann, teamId, instance.id, input), { code: 'invalid' }, JSON.stringify(input));
    }
    await assert.rejects(createLiveLink(p, bob, teamId, instance.id, { mode: 'control' }), { code: 'forbidden' });
    const { link } = await createLiveLink(p, ann, teamId, instance.id, { label: 'Ann’s' });
    assert.equal((await listLiveLinks(p, bob, teamId, instance.id)).find((l) => l.id === link.id)?.canRevoke, false);
    await assert.rejects(revokeLiveLink(p, bob, teamId, instance.id, link.id), { code: 'forbidden' });
    const stranger = await account(data, 'Eve');
    await assert.rejects(createLiveLink(p, stranger, teamId, instance.id, {}), { code: 'not_found' });
    await assert.rejects(revokeLiveLink(p, stranger, teamId, instance.id, link.id), { code: 'not_found' });
    await assert.rejects(createLiveLink(p, ann, teamId, 'inst_nothing_here_', {}), { code: 'not_found' });
  });

  it('ends every view with the browser, and the link then says the browser has ended', async () => {
    const { token } = await createLiveLink(p, ann, teamId, instance.id, {});
    const guest = await connect(`/embed/${token}/socket`);
    await eventually(() => state(guest), Boolean);
    instances.stop(instance.id);
    assert.equal(await guest.closed, LIVE_CLOSE.ended.code);
    assert.equal((await resolveLiveLink(data, p.browsers, token)).status, 'ended');
  });
});
