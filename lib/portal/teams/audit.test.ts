import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { auditCsv, auditLog, AUDIT_ACTIONS, isAuditAction, KeyUseLog } from './audit.ts';
import { createTeam } from './teams.ts';
import { account, memoryData } from '../../../tests/helpers/portal-doubles.ts';

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 500,
  );

async function collect(rows: AsyncGenerator<string>): Promise<string> {
  let out = '';
  for await (const row of rows) out += row;
  return out;
}

describe('the audit log', () => {
  it('pages newest first and filters by kind and person; bad filters are a 400', async () => {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const bob = await account(data, 'Bob');
    const team = await createTeam(data, ann, { name: 'T' });
    await data.changeMembership(team.id, ann.userId, 'owner', {
      teamId: team.id,
      actorId: ann.userId,
      action: 'team.renamed',
      subject: 'T',
    });
    for (let i = 0; i < 150; i++) {
      await data.audit(
        { teamId: team.id, actorId: i % 2 ? bob.userId : ann.userId, action: i % 3 ? 'browser.started' : 'key.used', subject: `s${i}` },
        1_000 + i,
      );
    }
    const first = await auditLog(data, ann, team.id);
    assert.equal(first.events.length, 100);
    assert.ok(first.next);
    const second = await auditLog(data, ann, team.id, { before: first.next });
    const all = [...first.events, ...second.events];
    assert.equal(new Set(all.map((e) => e.id)).size, all.length, 'no event twice across pages');
    assert.equal(all.length, 152);
    assert.ok(
      all.every((e, i) => i === 0 || all[i - 1]!.createdAt >= e.createdAt),
      'newest first',
    );

    const browsers = await auditLog(data, ann, team.id, { kind: 'browsers', actor: bob.userId });
    assert.ok(browsers.events.length > 0 && browsers.events.every((e) => e.action === 'browser.started' && e.actorId === bob.userId));
    assert.deepEqual(browsers.actors.map((a) => a.label).sort(), ['ann@example.test', 'bob@example.test']);
    for (const bad of [{ kind: 'everything' }, { before: 'yesterday' }, { sort: 'asc' }])
      assert.equal(await status(auditLog(data, ann, team.id, bad)), 400, JSON.stringify(bad));
  });

  it('exports CSV with every field quoted and spreadsheet formulas neutralised', async () => {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'T' });
    await data.audit(
      {
        teamId: team.id,
        actorId: ann.userId,
        action: 'browser.started',
        subject: '=HYPERLINK("http://evil.example","x")',
        detail: { key: 'a "quoted", key' },
      },
      5,
    );
    const csv = await collect(auditCsv(data, ann, team.id, { kind: 'browsers' }));
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], '"time","actor","kind","action","description","subject","details"');
    assert.equal(lines.length, 2);
    assert.equal(
      lines[1],
      '"1970-01-01T00:00:00.005Z","ann@example.test","browsers","browser.started","Started browser","\'=HYPERLINK(""http://evil.example"",""x"")","with key a ""quoted"", key"',
    );
  });

  it('is for owners and admins only', async () => {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const stranger = await account(data, 'Eve');
    const team = await createTeam(data, ann, { name: 'T' });
    assert.equal(await status(auditLog(data, stranger, team.id)), 404);
    assert.equal(await status(collect(auditCsv(data, stranger, team.id))), 404);
  });

  it("records the portal's use of a key once per person, key and purpose per window", async () => {
    const data = memoryData();
    const ann = await account(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'T' });
    const log = new KeyUseLog(data, 60_000);
    const use = (purpose: 'search' | 'browser', at: number) =>
      log.used({ teamId: team.id, actorId: ann.userId, keyId: 'key_1', keyName: 'K', purpose }, at);
    await use('search', 1_000);
    await use('search', 2_000);
    await use('browser', 2_500);
    await use('search', 70_000);
    const used = await data.auditLog(team.id, { limit: 10, actions: ['key.used'] });
    assert.deepEqual(
      used.map((e) => [e.createdAt, e.detail.purpose]),
      [
        [70_000, 'search'],
        [2_500, 'browser'],
        [1_000, 'search'],
      ],
    );
  });

  it('names every action the code records', () => {
    const actions = Object.values(AUDIT_ACTIONS).flatMap((k) => Object.keys(k));
    assert.equal(new Set(actions).size, actions.length, 'each action in one kind');
    // Every `action: ...` the portal's code writes, quoted actions inside it included.
    const recorded = new Set<string>();
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    for (const file of readdirSync(root, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/\baction: ([^,}\n]+)/g)) {
        for (const q of m[1]!.matchAll(/'([a-z_]+\.[a-z_]+)'/g)) recorded.add(q[1]!);
      }
    }
    assert.ok(recorded.size >= 15, `found the callers: ${[...recorded].join(' ')}`);
    for (const action of recorded) assert.ok(isAuditAction(action), `${action} is recorded but has no kind or words in AUDIT_ACTIONS`);
  });
});
