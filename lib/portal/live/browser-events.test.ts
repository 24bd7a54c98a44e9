import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { auditCsv, auditLog } from '../teams/audit.ts';
import { createTeam } from '../teams/teams.ts';
import { recordBrowserEvents } from './browsers.ts';
import type { EndedTeamBrowser, TeamBrowser, TeamBrowsers } from './team-browsers.ts';
import type { ControlHandover } from './live-browser.ts';
import { account, memoryData } from '../../../tests/helpers/portal-doubles.ts';
import { eventually } from '../../../tests/helpers/eventually.ts';

/** The team browsers' events, as TeamBrowsers emits them, into the real audit log. */
describe('recordBrowserEvents', () => {
  async function setUp() {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'Crew' });
    const events = new EventEmitter();
    recordBrowserEvents(events as unknown as TeamBrowsers, data, pino({ level: 'silent' }));
    const ended = (over: Partial<EndedTeamBrowser>): EndedTeamBrowser => ({
      id: 'br_1',
      browserId: `br_${'n'.repeat(32)}`,
      teamId: team.id,
      name: 'Nightly',
      startedBy: { userId: ann.userId, name: 'Ann' },
      keyName: 'ci',
      // Now: an end long ago would be forgotten as it is recorded (the month's limit is tried below).
      startedAt: Date.now() - 1_000,
      endedAt: Date.now(),
      reason: 'idle',
      message: 'nobody watched it for 10 minutes',
      stoppedBy: null,
      attached: false,
      recordedElsewhere: false,
      ...over,
    });
    // Events are recorded without waiting (a store may be a server away): read once the browser's event is in.
    const log = async () =>
      eventually(
        async () => (await auditLog(data, ann, team.id, {})).events,
        (events) => events.some((e) => e.action.startsWith('browser.') || e.action.startsWith('control.')),
      );
    return { data, ann, team, events, ended, log };
  }

  it('files an end nobody chose under no person, with its reason', async () => {
    const { events, ended, log } = await setUp();
    events.emit('ended', ended({ reason: 'idle' }));
    const [event] = (await log()).filter((e) => e.action.startsWith('browser.'));
    assert.equal(event?.action, 'browser.ended');
    assert.equal(event?.actorId, null);
    assert.equal(event?.subject, 'Nightly');
    assert.deepEqual(event?.detail, { instance: 'br_1', reason: 'idle', message: 'nobody watched it for 10 minutes' });
  });

  it("keeps the service's id of an ended browser in the team's history, and finds the record by it", async () => {
    const { data, events, ended, team } = await setUp();
    const browserId = `br_${'h'.repeat(32)}`;
    events.emit('ended', ended({ id: 'inst_history', browserId }));
    const [row] = await eventually(
      () => data.instanceHistory(team.id, 0, 10),
      (rows) => rows.length === 1,
    );
    assert.equal(row?.browserId, browserId);
    assert.deepEqual(
      (await data.instancesByBrowserId(team.id, [browserId, `br_${'x'.repeat(32)}`])).map((r) => [r.id, r.name]),
      [['inst_history', 'Nightly']],
    );
    assert.deepEqual(await data.instancesByBrowserId('team_other', [browserId]), [], "another team's id reads nothing");
    assert.deepEqual(await data.instancesByBrowserId(team.id, []), []);
  });

  it('forgets an ended browser a month after it ended, as the next one is recorded', async () => {
    const { data, events, ended, team } = await setUp();
    const day = 24 * 3_600_000;
    const now = Date.now();
    // Written straight to the store: one that ended 32 days ago and one 30 days ago, from an earlier run.
    for (const [id, daysAgo] of [
      ['inst_32', 32],
      ['inst_30', 30],
    ] as const) {
      const at = now - daysAgo * day;
      await data.recordInstance(
        {
          id,
          teamId: team.id,
          name: id,
          startedBy: null,
          startedByName: 'Ann',
          keyName: 'ci',
          startedAt: at - 1_000,
          endedAt: at,
          reason: 'idle',
          message: '',
          browserId: `br_${id}`,
        },
        0,
      );
    }
    const ids = async () => (await data.instanceHistory(team.id, 0, 10)).map((r) => r.id);
    assert.deepEqual(await ids(), ['inst_30', 'inst_32'], 'both are there before');
    events.emit('ended', ended({ id: 'inst_now', startedAt: now - 1_000, endedAt: now }));
    await eventually(ids, (rows) => rows.includes('inst_now'));
    assert.deepEqual(await ids(), ['inst_now', 'inst_30']);
    assert.deepEqual(await data.instancesByBrowserId(team.id, ['br_inst_32']), [], 'its recording is no longer named by it');
  });

  it('records no history for a script browser the portal only watched', async () => {
    const { data, events, ended, team, log } = await setUp();
    events.emit('ended', ended({ id: 'inst_watched', attached: true }));
    events.emit('ended', ended({ id: 'inst_own', reason: 'stopped' }));
    await log();
    const rows = await eventually(
      () => data.instanceHistory(team.id, 0, 10),
      (r) => r.length > 0,
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      ['inst_own'],
    );
  });

  it('files a stop under the person who stopped it', async () => {
    const { events, ended, log, ann } = await setUp();
    events.emit('ended', ended({ reason: 'stopped', stoppedBy: { userId: ann.userId, name: 'Ann' } }));
    const [event] = (await log()).filter((e) => e.action.startsWith('browser.'));
    assert.equal(event?.action, 'browser.stopped');
    assert.equal(event?.actorId, ann.userId);
  });

  it('files a handover under the person who received control, naming both, and the CSV filtered by that person has it', async () => {
    const { data, events, log, ann, team } = await setUp();
    const bob = await account(data, 'Bob');
    const handover: ControlHandover = { from: { name: 'Bob', userId: bob.userId }, to: { name: 'Ann', userId: ann.userId }, taken: false };
    events.emit('handover', { id: 'br_1', teamId: team.id, name: 'Nightly' } as TeamBrowser, handover);
    const [event] = (await log()).filter((e) => e.action === 'control.handed');
    assert.equal(event?.actorId, ann.userId);
    assert.deepEqual(event?.detail, { instance: 'br_1', from: 'Bob', to: 'Ann' });
    let csv = '';
    for await (const chunk of auditCsv(data, ann, team.id, { actor: ann.userId })) csv += chunk;
    assert.match(csv, /control\.handed/);
    csv = '';
    for await (const chunk of auditCsv(data, ann, team.id, { actor: bob.userId })) csv += chunk;
    assert.doesNotMatch(csv, /control\.handed/, 'filed under one person only');
  });

  it('files control an owner or admin took as taken, under the one who took it', async () => {
    const { data, events, log, ann, team } = await setUp();
    const bob = await account(data, 'Bob');
    const handover: ControlHandover = { from: { name: 'Bob', userId: bob.userId }, to: { name: 'Ann', userId: ann.userId }, taken: true };
    events.emit('handover', { id: 'br_1', teamId: team.id, name: 'Nightly' } as TeamBrowser, handover);
    const [event] = (await log()).filter((e) => e.action.startsWith('control.'));
    assert.equal(event?.action, 'control.taken');
    assert.equal(event?.actorId, ann.userId);
    assert.deepEqual(event?.detail, { instance: 'br_1', from: 'Bob', to: 'Ann' });
  });

  it('keeps who had control when, by the service browser id, for that team only, and forgets it after a month', async () => {
    const { data, events, ann, team } = await setUp();
    const instance = { id: 'inst_1', teamId: team.id, name: 'Nightly', live: { held: { id: 'br_abc' } } } as unknown as TeamBrowser;
    events.emit('controller', instance, { name: 'Ann', userId: ann.userId });
    events.emit('controller', instance, null);
    const history = await eventually(
      () => data.controlHistory(team.id, 'br_abc'),
      (h) => h.length === 2,
    );
    assert.deepEqual(
      history.map((c) => [c.userId, c.name]),
      [
        [ann.userId, 'Ann'],
        [null, null],
      ],
    );
    assert.ok(history[0]!.at <= history[1]!.at);
    assert.deepEqual(await data.controlHistory('team_other', 'br_abc'), [], "another team's id reads nothing");
    // An entry older than what is kept goes with the next one recorded.
    await data.recordControl({ browserId: 'br_old', teamId: team.id, at: 1, userId: null, name: 'Old' }, 0);
    assert.equal((await data.controlHistory(team.id, 'br_old')).length, 1);
    events.emit('controller', instance, { name: 'Ann', userId: ann.userId });
    await eventually(
      () => data.controlHistory(team.id, 'br_abc'),
      (h) => h.length === 3,
    );
    assert.deepEqual(await data.controlHistory(team.id, 'br_old'), []);
    assert.equal((await data.controlHistory(team.id, 'br_abc')).length, 3);
  });
});
