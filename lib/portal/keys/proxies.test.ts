import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretBox } from '../crypto/secretbox.ts';
import { acceptInvite, createInvite } from '../teams/invites.ts';
import { createTeam } from '../teams/teams.ts';
import { account, memoryVault } from '../../../tests/helpers/portal-doubles.ts';
import { auditLog } from '../teams/audit.ts';
import { parseProxyAddress } from '../schemas.ts';
import { addKey, resealAll } from './vault.ts';
import { addProxy, deleteProxy, listProxies, openTeamProxy } from './proxies.ts';

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? 500,
  );
const issuesOf = (p: Promise<unknown>) =>
  p.then(
    () => [],
    (e: { issues?: { field: string; message: string }[] }) => e.issues ?? [],
  );
const SECRET = 's3cret-Passw0rd';
const ADDRESS = `http://alice:${SECRET}@proxy.example.com:8080`;

async function setup() {
  const v = memoryVault();
  const ann = await account(v.data, 'ann');
  const bob = await account(v.data, 'bob');
  const team = await createTeam(v.data, ann, { name: 'T' });
  return { v, ann, bob, team };
}

describe('proxy addresses', () => {
  it('read the three schemes, with and without credentials, and fill in the port', () => {
    assert.deepEqual(parseProxyAddress(ADDRESS), {
      url: ADDRESS,
      scheme: 'http',
      host: 'proxy.example.com',
      port: 8080,
      hasCredentials: true,
    });
    assert.deepEqual(parseProxyAddress('https://proxy.example.com'), {
      url: 'https://proxy.example.com:443',
      scheme: 'https',
      host: 'proxy.example.com',
      port: 443,
      hasCredentials: false,
    });
    const socks = parseProxyAddress('socks5://u@[2001:db8::1]:1081/');
    assert.equal(typeof socks === 'object' && socks.url, 'socks5://u@[2001:db8::1]:1081');
    assert.equal(typeof socks === 'object' && socks.host, '[2001:db8::1]');
  });

  it('refuse what is not a proxy address, saying what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['ftp://proxy.example.com:21', /http:\/\/, https:\/\/ or socks5:\/\//],
      ['socks4://proxy.example.com:1080', /http:\/\/, https:\/\/ or socks5:\/\//],
      ['proxy.example.com:8080', /http:\/\/, https:\/\/ or socks5:\/\//],
      ['http://proxy.example.com:8080/path', /no path, query or fragment/],
      ['http://proxy.example.com:8080?x=1', /no path, query or fragment/],
      ['http://proxy.example.com:99999', /not an address/],
      ['http://user name@proxy.example.com:8080', /without spaces/],
      ['http://:pw@proxy.example.com:8080', /user name with the password/],
      ['not a url', /without spaces/],
      ['nonsense', /not an address/],
    ];
    for (const [text, message] of cases) {
      const parsed = parseProxyAddress(text);
      assert.equal(typeof parsed, 'string', text);
      assert.match(parsed as string, message, text);
    }
  });
});

describe('team proxies', () => {
  it('are stored sealed, shown by name, scheme and host only, and opened only for a start', async () => {
    const { v, ann, team } = await setup();
    const added = await addProxy(v, ann, team.id, { name: 'Office', url: ADDRESS });
    assert.deepEqual(
      { name: added.name, scheme: added.scheme, host: added.host, port: added.port, login: added.hasCredentials },
      { name: 'Office', scheme: 'http', host: 'proxy.example.com', port: 8080, login: true },
    );
    const listed = await listProxies(v, ann, team.id);
    assert.equal(listed.length, 1);
    assert.ok(!JSON.stringify(listed).includes(SECRET) && !JSON.stringify(listed).includes('alice'), 'no credentials in the view');
    const [row] = await v.data.proxies(team.id);
    assert.ok(row && !row.sealed.includes(SECRET) && row.sealed.startsWith('v1.'), 'sealed at rest');
    assert.deepEqual(await openTeamProxy(v, ann, team.id, added.id), { name: 'Office', url: ADDRESS });
    const actions = (await auditLog(v.data, ann, team.id)).events.map((e) => e.action);
    assert.ok(actions.includes('proxy.added'));
    await deleteProxy(v, ann, team.id, added.id);
    assert.deepEqual(await listProxies(v, ann, team.id), []);
    assert.equal(await status(openTeamProxy(v, ann, team.id, added.id)), 404, 'a deleted proxy is not found');
    const log = (await auditLog(v.data, ann, team.id)).events;
    assert.ok(log.some((e) => e.action === 'proxy.deleted' && e.subject === 'Office'));
    assert.ok(!JSON.stringify(log).includes(SECRET), 'the audit log names the host, never the credentials');
  });

  it('refuse bad input with the field named, and a second proxy of the same name', async () => {
    const { v, ann, team } = await setup();
    assert.deepEqual(
      (await issuesOf(addProxy(v, ann, team.id, { name: 'X', url: 'ftp://h:1' }))).map((i) => i.field),
      ['url'],
    );
    assert.deepEqual(
      (await issuesOf(addProxy(v, ann, team.id, { name: '  ', url: ADDRESS }))).map((i) => i.field),
      ['name'],
    );
    assert.deepEqual(
      (await issuesOf(addProxy(v, ann, team.id, { name: 'X', url: `http://${'a'.repeat(2100)}:1` }))).map((i) => i.field),
      ['url'],
    );
    assert.equal(await status(addProxy(v, ann, team.id, { name: 'X', url: ADDRESS, extra: 1 })), 400, 'unknown fields are refused');
    assert.equal(await status(addProxy(v, ann, team.id, { name: 'X', url: 42 })), 400);
    await addProxy(v, ann, team.id, { name: 'X', url: ADDRESS });
    assert.equal(await status(addProxy(v, ann, team.id, { name: 'X', url: 'socks5://other.example.com:1080' })), 409);
    assert.equal((await listProxies(v, ann, team.id)).length, 1);
  });

  it("let members see and use them but not add or delete them; another team's is not found", async () => {
    const { v, ann, bob, team } = await setup();
    const x = await addProxy(v, ann, team.id, { name: 'Office', url: ADDRESS });
    assert.equal(await status(listProxies(v, bob, team.id)), 404, 'an outsider sees nothing');
    const { token } = await createInvite(v.data, ann, team.id, { role: 'member' }, 3_600_000);
    await acceptInvite(v.data, bob, token);
    assert.equal((await listProxies(v, bob, team.id)).length, 1);
    assert.equal((await openTeamProxy(v, bob, team.id, x.id)).url, ADDRESS, 'a member starts browsers through it');
    assert.equal(await status(addProxy(v, bob, team.id, { name: 'Mine', url: ADDRESS })), 403);
    assert.equal(await status(deleteProxy(v, bob, team.id, x.id)), 403);
    const other = await createTeam(v.data, bob, { name: 'Bob’s' });
    assert.equal(await status(openTeamProxy(v, bob, other.id, x.id)), 404, "another team's proxy cannot be used");
    assert.equal(await status(deleteProxy(v, bob, other.id, x.id)), 404);
    assert.equal((await listProxies(v, ann, team.id)).length, 1);
  });

  it('are re-encrypted with the keys when the secret rotates', async () => {
    const { v, ann, team } = await setup();
    await addKey(v, ann, team.id, { mode: 'add', name: 'K', key: 'rk_live_0123456789abcdefghijklmnopqrstuvwxyz' });
    const x = await addProxy(v, ann, team.id, { name: 'Office', url: ADDRESS });
    const next = new SecretBox('n'.repeat(40));
    assert.equal(await resealAll(v.data, v.box, next), 2, 'the key and the proxy');
    assert.equal((await openTeamProxy({ ...v, box: next }, ann, team.id, x.id)).url, ADDRESS);
    assert.equal(await status(openTeamProxy(v, ann, team.id, x.id)), 500, 'the old secret no longer opens it');
  });
});
