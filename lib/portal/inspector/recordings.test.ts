import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addKey } from '../keys/vault.ts';
import { createTeam } from '../teams/teams.ts';
import type { HeldRow } from '../live/held-row.ts';
import { teamRecordings } from './recordings.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';

const br = (c: string) => `br_${c.repeat(32)}`;
const ENDED = br('e');
const LIVE = br('l');
const SCRIPT = br('s');
const WATCHED = br('w');

const listed = (id: string, title: string, live = false) => ({
  id,
  status: live ? 'live' : 'ended',
  startedAt: '2026-11-23T10:00:00.000Z',
  endedAt: live ? null : '2026-11-23T10:05:00.000Z',
  endReason: live ? null : 'client-closed',
  page: { url: `https://${title.toLowerCase().replaceAll(' ', '-')}.test/`, title },
  tabs: 1,
  recorded: true,
});

/**
 * The recordings list names a browser the portal started by the name its starter gave it (decision
 * 0112): an ended one from the team's history, a live one from the browsers the portal holds. The
 * service is a stand-in for GET /v0/browsers of the one key it knows.
 */
describe('teamRecordings', () => {
  let server: Server;
  let url = '';
  let token = '';
  before(async () => {
    server = createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end('{}');
      const browsers = [
        listed(LIVE, 'Live page', true),
        listed(ENDED, 'Ended page'),
        listed(SCRIPT, 'Script page'),
        listed(WATCHED, 'Watched page', true),
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ browsers }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it("names the portal's browsers, ended and live, by the names they were given, and a script's by nothing", async () => {
    const vault = memoryVault();
    const ann = await account(vault.data, 'Ann');
    const crew = await createTeam(vault.data, ann, { name: 'Crew' });
    token = (await addKey(vault, ann, crew.id, { mode: 'create', name: 'ci key' })).token;
    await vault.data.recordInstance(
      {
        id: 'inst_ended',
        teamId: crew.id,
        name: 'Checkout run',
        startedBy: ann.userId,
        startedByName: 'Ann',
        keyName: 'ci key',
        startedAt: 1,
        endedAt: 2,
        reason: 'stopped',
        message: 'stopped by Ann',
        browserId: ENDED,
      },
      0,
    );
    const row = (browserId: string, name: string, attached: boolean) => ({ browserId, name, attached }) as HeldRow;
    const browsers = {
      listForTeam: async (teamId: string) =>
        teamId === crew.id ? [row(LIVE, 'Signup run', false), row(WATCHED, 'Watched page', true)] : [],
    };
    const recordings = await teamRecordings({ vault, serviceUrl: url, browsers }, ann, crew.id);
    assert.deepEqual(Object.fromEntries(recordings.map((r) => [r.id, r.name])), {
      [LIVE]: 'Signup run',
      [ENDED]: 'Checkout run',
      [SCRIPT]: null,
      [WATCHED]: null,
    });
    assert.equal(recordings.find((r) => r.id === SCRIPT)?.title, 'Script page', "a script's keeps what the service knows of it");

    // Another team's history names nothing here, even for the same browser id.
    const other = await createTeam(vault.data, ann, { name: 'Other' });
    await vault.data.recordInstance(
      {
        id: 'inst_other',
        teamId: other.id,
        name: 'Not theirs',
        startedBy: ann.userId,
        startedByName: 'Ann',
        keyName: 'k',
        startedAt: 1,
        endedAt: 2,
        reason: 'stopped',
        message: '',
        browserId: SCRIPT,
      },
      0,
    );
    const again = await teamRecordings({ vault, serviceUrl: url }, ann, crew.id);
    assert.equal(again.find((r) => r.id === SCRIPT)?.name, null);
    assert.equal(again.find((r) => r.id === LIVE)?.name, null, 'without the held browsers, a live one has no name yet');
  });
});
