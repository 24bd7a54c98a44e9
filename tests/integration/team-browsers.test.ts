import { asDomainError } from '#shared/errors.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import { TeamBrowsers, type EndedTeamBrowser } from '#portal/live/team-browsers.ts';
import { chromiumProcesses, eventually, killAll } from '../helpers/browser.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const user = { userId: 'usr_1', name: 'Ada' };
const viewer = (id: string) => ({ id, name: id, send: () => {}, frames: new FrameSlot({ send: (_d, done) => setImmediate(done) }) });

describe('TeamBrowsers: instances the portal holds', () => {
  let service: ServiceProcess;
  let token: string;
  let instances: TeamBrowsers;
  const ended: EndedTeamBrowser[] = [];
  const start = (name?: string) => instances.start({ teamId: 'team_1', user, keyId: 'key_1', keyName: 'default', apiKey: token, name });

  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '1' });
    token = service.createKey({ maxInstances: 10 }).token;
    instances = new TeamBrowsers({ serviceUrl: service.url, idleMs: 600, maxPerUser: 2, maxPerTeam: 10, log: pino({ level: 'silent' }) });
    instances.on('ended', (e) => ended.push(e));
  });
  after(async () => {
    await instances.shutdown();
    await service.stop();
  });

  it('starts, names, lists and stops instances, recording why each ended', async () => {
    const one = await start('research');
    assert.equal(one.name, 'research');
    assert.deepEqual(
      instances.listForTeam('team_1').map((i) => i.id),
      [one.id],
    );
    assert.deepEqual(instances.listForTeam('team_2'), []);
    instances.rename(one.id, 'renamed');
    assert.equal(instances.get(one.id)?.name, 'renamed');
    const browserId = one.live.held.id;
    instances.stop(one.id);
    const record = await eventually(() => ended.find((e) => e.id === one.id), Boolean);
    assert.equal(record?.reason, 'stopped');
    assert.equal(record?.name, 'renamed');
    assert.equal(record?.browserId, browserId, "the end names the service's browser");
    assert.match(browserId, /^br_/);
    assert.equal(instances.get(one.id), undefined);
  });

  it('enforces the per-user limit', async () => {
    const a = await start();
    const b = await start();
    await assert.rejects(start(), (err: Error & { status?: number }) => err.status === 429 && /limit/.test(err.message));
    instances.stop(a.id);
    instances.stop(b.id);
    await eventually(
      () => instances.listForTeam('team_1').length,
      (n) => n === 0,
    );
  });

  it('keeps a watched instance and ends one that nobody watches for the idle time', async () => {
    const watched = await start('watched');
    watched.live.addViewer(viewer('v1'));
    const idle = await start('idle');
    const record = await eventually(() => ended.find((e) => e.id === idle.id), Boolean, 5000);
    assert.equal(record?.reason, 'idle');
    assert.ok(instances.get(watched.id), 'the watched one lives on');
    watched.live.removeViewer('v1');
    assert.equal((await eventually(() => ended.find((e) => e.id === watched.id), Boolean, 5000))?.reason, 'idle');
  });

  it('records a crash when Chromium dies, and says so', async () => {
    const doomed = await start('doomed');
    doomed.live.addViewer(viewer('v2'));
    killAll(await chromiumProcesses(service.dataDir));
    const record = await eventually(() => ended.find((e) => e.id === doomed.id), Boolean, 5000);
    assert.equal(record?.reason, 'crashed');
  });

  it('records the service going away', async () => {
    const other = await startService({ BROWSER_POOL_SIZE: '0' });
    const held = new TeamBrowsers({ serviceUrl: other.url, idleMs: 60_000, maxPerUser: 2, maxPerTeam: 10, log: pino({ level: 'silent' }) });
    const ends: EndedTeamBrowser[] = [];
    held.on('ended', (e) => ends.push(e));
    const i = await held.start({ teamId: 't', user, keyId: 'k', keyName: 'k', apiKey: other.createKey().token });
    await other.stop('SIGKILL');
    const record = await eventually(() => ends.find((e) => e.id === i.id), Boolean, 5000);
    assert.equal(record?.reason, 'service-gone');
  });

  it('closes every /start cleanly when the portal shuts down, so the service ends them', async () => {
    // Watched, so that neither ends idle (600 ms here) while the other starts on a busy machine.
    const one = await start('one');
    one.live.addViewer(viewer('s1'));
    const two = await start('two');
    two.live.addViewer(viewer('s2'));
    await instances.shutdown();
    for (const i of [one, two]) assert.equal(ended.find((e) => e.id === i.id)?.reason, 'portal-shutdown');
    const live = await eventually(
      async () => ((await (await fetch(`${service.url}/healthz`)).json()) as { browsers: { live: number } }).browsers.live,
      (n) => n === 0,
    );
    assert.equal(live, 0, 'the service ended both');
  });

  it("refuses to start with a key the service refuses, in the portal's words", async () => {
    await assert.rejects(
      instances.start({ teamId: 'team_1', user, keyId: 'k', keyName: 'old key', apiKey: 'psk_nope' }),
      (err: unknown) => {
        const e = asDomainError(err);
        return e?.code === 'key_refused' && e.status === 403 && e.message.includes('"old key"');
      },
    );
  });
});
