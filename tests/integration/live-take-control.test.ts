import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { ServerMessage } from '#portal/protocol/live.ts';
import type { ControlHandover } from '#portal/live/live-browser.ts';
import type { TeamBrowser, TeamBrowsers } from '#portal/live/team-browsers.ts';
import { eventually } from '../helpers/browser.ts';
import { LIVE_ORIGIN, serveLiveSockets, startTeamBrowser } from '../helpers/live-sockets.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

/** The team: who signs in with which cookie, and their role. */
const PEOPLE: Record<string, { userId: string; name: string; role: 'owner' | 'admin' | 'member' }> = {
  mia: { userId: 'u_mia', name: 'Mia', role: 'member' },
  otto: { userId: 'u_otto', name: 'Otto', role: 'owner' },
  max: { userId: 'u_max', name: 'Max', role: 'member' },
};

/**
 * The live socket over a real instance: a team owner or admin who asked for control can take it
 * without the controller's consent, who is told who took it; a member can only ask, whatever the
 * page sends, because the server looks the role up itself at each take.
 */
describe('taking control on the live socket', () => {
  let service: ServiceProcess;
  let instances: TeamBrowsers;
  let instance: TeamBrowser;
  let server: Awaited<ReturnType<typeof serveLiveSockets>>;
  let url: string;
  const handovers: ControlHandover[] = [];

  before(async () => {
    service = await startService();
    ({ instances, instance } = await startTeamBrowser(service, { teamId: 't', user: { userId: 'u_mia', name: 'Mia' } }));
    instances.on('handover', (_i, h) => handovers.push(h));
    server = await serveLiveSockets(instances, {
      authenticate: async (req) => {
        const who = PEOPLE[/session=(\w+)/.exec(req.headers.cookie ?? '')?.[1] ?? ''];
        return who ? { userId: who.userId, name: who.name, sessionVersion: 0 } : null;
      },
      recheck: async (_user, teamId) => (teamId === 't' ? 'ok' : 'not-member'),
      mayTakeControl: async (userId, teamId) =>
        teamId === 't' && Object.values(PEOPLE).some((p) => p.userId === userId && p.role !== 'member'),
    });
    url = `${server.base}/live/${instance.id}`;
  });
  after(async () => {
    await instances?.shutdown();
    server?.close();
    await service?.stop();
  });

  /** A viewer signed in as `who`, joined and welcomed. */
  async function viewer(who: keyof typeof PEOPLE) {
    const ws = new WebSocket(url, { headers: { cookie: `session=${who}`, origin: LIVE_ORIGIN } });
    const messages: ServerMessage[] = [];
    ws.on('message', (data, isBinary) => {
      if (!isBinary) messages.push(JSON.parse(data.toString()) as ServerMessage);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ type: 'hello', v: 1 }));
    const welcome = await eventually(() => messages.find((m) => m.type === 'welcome'), Boolean);
    const id = welcome && welcome.type === 'welcome' ? welcome.viewerId : '';
    const send = (msg: Record<string, unknown>) => ws.send(JSON.stringify(msg));
    return { ws, id, messages, send };
  }
  const controller = () => instance.live.control.controllerId;
  const asked = (id: string) => instance.live.control.list().find((v) => v.id === id)?.requested === true;

  it('moves control to an owner who asked, at once, tells the one who had it who took it, and records it as taken', async () => {
    const mia = await viewer('mia');
    const otto = await viewer('otto');
    assert.equal(controller(), mia.id, 'the first viewer has control');

    // Taking before asking changes nothing: the owner must have asked first.
    otto.send({ type: 'control', action: 'take' });
    await eventually(() => otto.messages.some((m) => m.type === 'error' && m.code === 'not-in-control'), Boolean);
    assert.equal(controller(), mia.id);

    otto.send({ type: 'control', action: 'request' });
    await eventually(() => asked(otto.id), Boolean);
    // Mia ignores the question; the owner takes control.
    otto.send({ type: 'control', action: 'take' });
    await eventually(
      () => controller(),
      (c) => c === otto.id,
    );
    const notice = await eventually(() => mia.messages.find((m) => m.type === 'taken'), Boolean);
    assert.deepEqual(notice, { type: 'taken', by: 'Otto' });
    assert.equal(otto.messages.filter((m) => m.type === 'taken').length, 0, 'only the one who had control is told');
    const last = await eventually(
      () => handovers.at(-1),
      (h) => h?.to.name === 'Otto',
    );
    assert.deepEqual(last, { from: { name: 'Mia', userId: 'u_mia' }, to: { name: 'Otto', userId: 'u_otto' }, taken: true });

    // Mia may now type nothing into the page: control is Otto's.
    mia.send({ type: 'key', action: 'down', key: 'a', code: 'KeyA' });
    await eventually(() => mia.messages.some((m) => m.type === 'error' && m.message === 'ask for control first'), Boolean);
    mia.ws.close();
    otto.ws.close();
    await eventually(
      () => instance.live.viewerCount,
      (n) => n === 0,
    );
  });

  it("refuses a member's forged take, who asked, and leaves control where it was", async () => {
    const mia = await viewer('mia');
    const max = await viewer('max');
    assert.equal(controller(), mia.id);
    max.send({ type: 'control', action: 'request' });
    await eventually(() => asked(max.id), Boolean);
    const before = handovers.length;
    // The page offers a member no such button; the message is sent by hand.
    max.send({ type: 'control', action: 'take' });
    const refusal = await eventually(() => max.messages.find((m) => m.type === 'error'), Boolean);
    assert.deepEqual(refusal, { type: 'error', code: 'not-in-control', message: 'only team owners and admins can take control' });
    assert.equal(controller(), mia.id);
    assert.equal(asked(max.id), true, 'the question still stands');
    assert.equal(mia.messages.filter((m) => m.type === 'taken').length, 0);
    assert.equal(handovers.length, before);

    // The controller can still hand it over as before.
    mia.send({ type: 'control', action: 'grant', viewerId: max.id });
    await eventually(
      () => controller(),
      (c) => c === max.id,
    );
    assert.equal(handovers.at(-1)?.taken, false);
    mia.ws.close();
    max.ws.close();
    await eventually(
      () => instance.live.viewerCount,
      (n) => n === 0,
    );
  });

  it('refuses a take with fields the protocol does not know as an invalid message', async () => {
    const otto = await viewer('otto');
    otto.send({ type: 'control', action: 'seize' });
    const refusal = await eventually(() => otto.messages.find((m) => m.type === 'error'), Boolean);
    assert.equal(refusal?.type === 'error' && refusal.code, 'invalid-message');
    otto.ws.close();
  });
});
