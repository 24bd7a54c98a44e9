import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InstanceRecord } from '../data/portal-data.ts';
import { endedBrowsers } from './ended-browsers.ts';
import type { KeyBrowserOfTeam } from './key-browsers.ts';

const br = (c: string) => `br_${c.repeat(32)}`;
const DAY_AGO = 1_000_000;

const record = (over: Partial<InstanceRecord>): InstanceRecord => ({
  id: 'inst_a',
  teamId: 'team_1',
  name: 'Checkout run',
  startedBy: 'usr_1',
  startedByName: 'Ann',
  keyName: 'ci key',
  startedAt: DAY_AGO + 100,
  endedAt: DAY_AGO + 200,
  reason: 'stopped',
  message: 'stopped by Ann',
  browserId: br('a'),
  ...over,
});

const keyBrowser = (over: Partial<KeyBrowserOfTeam>): KeyBrowserOfTeam => ({
  id: br('s'),
  live: false,
  startedAt: DAY_AGO + 300,
  endedAt: DAY_AGO + 400,
  endReason: 'client-closed',
  url: 'https://report.example/',
  title: 'Nightly report',
  tabs: 1,
  recorded: false,
  keyId: 'key_1',
  keyName: 'ci key',
  ...over,
});

const opts = { since: DAY_AGO, limit: 100 };

describe('endedBrowsers', () => {
  it('lists a browser the portal started once, under the name its starter gave it, though the service lists it too', () => {
    const rows = endedBrowsers([record({})], [keyBrowser({ id: br('a'), title: 'Some page' })], opts);
    assert.deepEqual(
      rows.map((r) => [r.id, r.name, r.startedByName, r.script]),
      [['inst_a', 'Checkout run', 'Ann', false]],
    );
    assert.equal(rows[0]?.browserId, br('a'));
  });

  it("lists a script's ended browser with what the service knows of it: its page, its key, its reason", () => {
    const rows = endedBrowsers([record({})], [keyBrowser({})], opts);
    assert.deepEqual(rows[0], {
      id: br('s'),
      browserId: br('s'),
      name: 'Nightly report',
      startedByName: '',
      keyName: 'ci key',
      startedAt: DAY_AGO + 300,
      endedAt: DAY_AGO + 400,
      reason: 'client-closed',
      message: '',
      script: true,
      url: 'https://report.example/',
    });
    assert.deepEqual(
      rows.map((r) => r.id),
      [br('s'), 'inst_a'],
      'newest end first',
    );
  });

  it("names a script's browser by its address when it has no title, and by a piece of its id when it had no page", () => {
    const rows = endedBrowsers(
      [],
      [keyBrowser({ id: br('t'), title: '', url: 'https://untitled.example/' }), keyBrowser({ id: br('u'), title: '', url: '' })],
      opts,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      ['https://untitled.example/', "Script's browser uuuuuu"],
    );
  });

  it('leaves out live browsers, those that ended before the window, and those the portal still holds', () => {
    const rows = endedBrowsers(
      [record({ id: 'inst_old', browserId: br('o'), endedAt: DAY_AGO - 1 })],
      [
        keyBrowser({ id: br('l'), live: true, endedAt: null, endReason: null }),
        keyBrowser({ id: br('e'), endedAt: DAY_AGO - 1 }),
        keyBrowser({ id: br('h') }),
      ],
      { ...opts, held: new Set([br('h')]) },
    );
    assert.deepEqual(rows, []);
  });

  it('keeps an old record without a browser id, and a script browser the same key lists twice once', () => {
    const rows = endedBrowsers(
      [record({ id: 'inst_before', browserId: null })],
      [keyBrowser({}), keyBrowser({ keyId: 'key_2', keyName: 'same key added again' })],
      opts,
    );
    assert.deepEqual(
      rows.map((r) => [r.id, r.browserId]),
      [
        [br('s'), br('s')],
        ['inst_before', null],
      ],
    );
  });

  it('keeps the newest ends up to the limit, and an unknown end reason as empty', () => {
    const many = Array.from({ length: 5 }, (_, i) =>
      keyBrowser({ id: br(String(i)), endedAt: DAY_AGO + i, endReason: i === 4 ? null : 'stopped' }),
    );
    const rows = endedBrowsers([], many, { ...opts, limit: 2 });
    assert.deepEqual(
      rows.map((r) => [r.id, r.reason]),
      [
        [br('4'), ''],
        [br('3'), 'stopped'],
      ],
    );
  });
});
