import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { addKey } from '../keys/vault.ts';
import { createTeam } from '../teams/teams.ts';
import { KeyBrowsers } from './key-browsers.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';

const ID = `br_${'a'.repeat(32)}`;
const ENDED = `br_${'e'.repeat(32)}`;

/** A stand-in for the service's GET /v0/browsers: one live browser and one ended one for the one token it knows. */
describe('KeyBrowsers', () => {
  let server: Server;
  let url = '';
  let token = '';
  let up = true;
  let calls = 0;
  before(async () => {
    server = createServer((req, res) => {
      calls++;
      if (!up) return void res.writeHead(503).end('{}');
      // The team's other key is one this service refuses: it must not spoil the list.
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end('{}');
      const browsers = [
        {
          id: ID,
          status: 'live',
          startedAt: '2026-11-23T10:00:00.000Z',
          endedAt: null,
          endReason: null,
          page: { url: 'https://a.test/', title: 'A' },
          tabs: 2,
          recorded: false,
        },
        {
          id: ENDED,
          status: 'ended',
          startedAt: '2026-11-23T09:00:00.000Z',
          endedAt: '2026-11-23T09:30:00.000Z',
          endReason: 'client-closed',
          page: { url: 'https://b.test/', title: 'B' },
          tabs: 1,
          recorded: false,
        },
      ];
      // The whole list is asked for: the ended ones are the dashboard's too.
      if (req.url !== '/v0/browsers') return void res.writeHead(400).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ browsers }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  async function team() {
    const v = memoryVault();
    const ann = await account(v.data, 'Ann');
    const crew = await createTeam(v.data, ann, { name: 'Crew' });
    token = (await addKey(v, ann, crew.id, { mode: 'create', name: 'ci key' })).token;
    await addKey(v, ann, crew.id, { mode: 'create', name: 'other key' });
    return { v, ann, crew, reader: new KeyBrowsers({ serviceUrl: url, vault: v, log: pino({ level: 'silent' }), maxAgeMs: 60_000 }) };
  }

  it("lists the live browsers of every key of the team, under the key's name; a key the service refuses lists nothing", async () => {
    const { reader, ann, crew, v } = await team();
    const ciKey = (await v.data.keys(crew.id)).find((k) => k.name === 'ci key');
    assert.deepEqual(await reader.list(ann, crew.id), [
      {
        id: ID,
        live: true,
        startedAt: Date.parse('2026-11-23T10:00:00.000Z'),
        endedAt: null,
        endReason: null,
        url: 'https://a.test/',
        title: 'A',
        tabs: 2,
        recorded: false,
        keyId: ciKey?.id,
        keyName: 'ci key',
      },
    ]);
  });

  it('gives the ended browsers of the same list apart from the live ones', async () => {
    const { reader, ann, crew } = await team();
    const all = await reader.all(ann, crew.id);
    assert.deepEqual(
      all.map((b) => [b.id, b.live, b.endedAt, b.endReason, b.keyName]),
      [
        [ID, true, null, null, 'ci key'],
        [ENDED, false, Date.parse('2026-11-23T09:30:00.000Z'), 'client-closed', 'ci key'],
      ],
    );
  });

  it('asks the service once per team while the list is fresh, and checks membership before the cache', async () => {
    const { reader, ann, crew, v } = await team();
    const before = calls;
    await reader.list(ann, crew.id);
    await reader.list(ann, crew.id);
    await reader.all(ann, crew.id);
    assert.equal(calls - before, 2, 'one request per key, once, for the live and the ended ones');
    const outsider = await account(v.data, 'Eve');
    await assert.rejects(reader.list(outsider, crew.id), (e: Error & { code?: string }) => e.code === 'not_found');
  });

  it('keeps the last list while the service cannot answer', async () => {
    const { reader, ann, crew } = await team();
    assert.equal((await reader.list(ann, crew.id)).length, 1);
    up = false;
    try {
      assert.equal((await reader.list(ann, crew.id, { fresh: true })).length, 1);
    } finally {
      up = true;
    }
  });
});
