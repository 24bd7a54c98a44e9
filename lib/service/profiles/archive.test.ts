import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BadProfileArchive, checkEntryPath, packProfile, ProfileTooLarge, unpackProfile } from './archive.ts';
import { ProfileSealer, ProfileSealError } from './seal.ts';

/** An archive written byte by byte, as a hostile tenant or a tampered store could: entries given as [type, path, contents?]. */
function rawArchive(entries: [string, string, string?][]): Buffer {
  const parts = [Buffer.from('PPA1')];
  for (const [type, path, body] of entries) {
    const p = Buffer.from(path);
    const h = Buffer.alloc(3);
    h[0] = type.charCodeAt(0);
    h.writeUInt16BE(p.length, 1);
    parts.push(h, p);
    if (type === 'F') {
      const size = Buffer.alloc(8);
      size.writeBigUInt64BE(BigInt(Buffer.byteLength(body ?? '')));
      parts.push(size, Buffer.from(body ?? ''));
    }
  }
  parts.push(Buffer.from('E'));
  return Buffer.concat(parts);
}

describe('profile archives', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-profile-archive-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => join(dir, `case-${++n}`);

  it('keeps cookies and storage and leaves the caches out, and unpacks what it packed', async () => {
    const from = fresh();
    mkdirSync(join(from, 'Default', 'Local Storage', 'leveldb'), { recursive: true });
    mkdirSync(join(from, 'Default', 'Cache', 'Cache_Data'), { recursive: true });
    mkdirSync(join(from, 'Default', 'Network'), { recursive: true });
    writeFileSync(join(from, 'Local State'), '{}');
    writeFileSync(join(from, 'Default', 'Network', 'Cookies'), 'cookie jar');
    writeFileSync(join(from, 'Default', 'Local Storage', 'leveldb', '000003.log'), 'token');
    writeFileSync(join(from, 'Default', 'Cache', 'Cache_Data', 'data_0'), 'cached page');
    writeFileSync(join(from, 'Default', 'History'), 'visited');
    const packed = await packProfile(from, 1 << 20);
    const to = fresh();
    await unpackProfile(packed.data, to, null, 1 << 20);
    assert.equal(readFileSync(join(to, 'Default', 'Network', 'Cookies'), 'utf8'), 'cookie jar');
    assert.equal(readFileSync(join(to, 'Default', 'Local Storage', 'leveldb', '000003.log'), 'utf8'), 'token');
    assert.equal(readFileSync(join(to, 'Local State'), 'utf8'), '{}');
    assert.deepEqual(readdirSync(join(to, 'Default')).sort(), ['Local Storage', 'Network']);
  });

  it('leaves out links, FIFOs and files with a second name, and never reads through them', async () => {
    const from = fresh();
    const outside = join(dir, 'host-secret.txt');
    writeFileSync(outside, 'HOST-SECRET');
    mkdirSync(join(from, 'Default', 'Network'), { recursive: true });
    // First, that a copy of the secret as a plain file would be seen: the check below can fail.
    writeFileSync(join(from, 'Default', 'Preferences'), readFileSync(outside));
    assert.ok((await packProfile(from, 1 << 20)).data.includes('HOST-SECRET'));
    rmSync(join(from, 'Default', 'Preferences'));
    symlinkSync(outside, join(from, 'Default', 'Preferences'));
    symlinkSync(dir, join(from, 'Default', 'IndexedDB'));
    execFileSync('mkfifo', [join(from, 'Default', 'Cookies')]);
    linkSync(outside, join(from, 'Default', 'Network', 'Cookies'));
    const packed = await packProfile(from, 1 << 20);
    assert.equal(packed.data.includes('HOST-SECRET'), false);
    assert.deepEqual(packed.skipped.sort(), ['Default/Cookies', 'Default/IndexedDB', 'Default/Network/Cookies', 'Default/Preferences']);
  });

  it("never follows a link put in place of the profile folder, or of a folder in it, to another instance's profile", async () => {
    // Another instance's profile, as it lies beside this one on the host.
    const victim = fresh();
    mkdirSync(join(victim, 'Default', 'Network'), { recursive: true });
    writeFileSync(join(victim, 'Default', 'Network', 'Cookies'), 'victim-session');
    writeFileSync(join(victim, 'Local State'), '{"victim":true}');
    // The check can see the leak: packing the victim's own folder carries its cookie.
    assert.ok((await packProfile(victim, 1 << 20)).data.includes('victim-session'));

    // The tenant moved its profile folder aside and left a link to the victim's in its place.
    const linked = fresh();
    mkdirSync(linked);
    symlinkSync(victim, join(linked, 'profile'));
    await assert.rejects(packProfile(join(linked, 'profile'), 1 << 20), BadProfileArchive);

    // Or a link to the victim's Default folder in place of its own.
    const inner = fresh();
    mkdirSync(inner);
    writeFileSync(join(inner, 'Local State'), '{}');
    symlinkSync(join(victim, 'Default'), join(inner, 'Default'));
    const packed = await packProfile(inner, 1 << 20);
    assert.ok(!packed.data.includes('victim-session'), "the other instance's cookie is not read");
    assert.deepEqual(packed.skipped, ['Default']);
  });

  it('unpacks a profile of more files than it writes at once, each whole and once, private and given to its owner', async () => {
    const from = fresh();
    const expected = new Map<string, Buffer>();
    for (let f = 0; f < 5; f++) {
      mkdirSync(join(from, 'Default', 'IndexedDB', `site-${f}`), { recursive: true });
      for (let i = 0; i < 9; i++) {
        const path = join('Default', 'IndexedDB', `site-${f}`, `file-${i}`);
        const body = Buffer.alloc(1000 * (i + 1) + f, `${f}-${i}:`);
        writeFileSync(join(from, path), body);
        expected.set(path, body);
      }
    }
    const packed = await packProfile(from, 1 << 20);
    const to = fresh();
    // As root (the service's own case) everything is given to an instance's uid; otherwise left to this user.
    const owner = process.getuid?.() === 0 ? 54321 : null;
    const written = await unpackProfile(packed.data, to, owner, 1 << 20);
    assert.equal(
      written,
      [...expected.values()].reduce((n, b) => n + b.length, 0),
    );
    for (const [path, body] of expected) {
      assert.ok(readFileSync(join(to, path)).equals(body), path);
      const st = statSync(join(to, path));
      assert.equal(st.mode & 0o777, 0o600, path);
      if (owner !== null) assert.equal(st.uid, owner, path);
    }
    for (let f = 0; f < 5; f++) {
      assert.equal(readdirSync(join(to, 'Default', 'IndexedDB', `site-${f}`)).length, 9);
      const st = statSync(join(to, 'Default', 'IndexedDB', `site-${f}`));
      assert.equal(st.mode & 0o777, 0o700);
      if (owner !== null) assert.equal(st.uid, owner);
    }
  });

  it('writes nothing more once a file cannot be made, before it says so', async () => {
    const entries: [string, string, string?][] = [
      ['D', 'Default'],
      ['D', 'Default/IndexedDB'],
    ];
    for (let i = 0; i < 40; i++) entries.push(['F', `Default/IndexedDB/file-${i}`, 'x'.repeat(10_000)]);
    // A name longer than the file system takes (255 bytes a name) passes the archive's checks and fails to be made.
    entries.splice(5, 0, ['F', `Default/IndexedDB/${'n'.repeat(300)}`, 'x']);
    const to = fresh();
    await assert.rejects(unpackProfile(rawArchive(entries), to, null, 1 << 20), { code: 'ENAMETOOLONG' });
    const made = readdirSync(join(to, 'Default', 'IndexedDB')).length;
    assert.ok(made < 40, `${made} files were written after the failure`);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(readdirSync(join(to, 'Default', 'IndexedDB')).length, made, 'no file is written after the unpack has thrown');
  });

  it('stops packing at the limit instead of reading the whole of a large file', async () => {
    const from = fresh();
    mkdirSync(join(from, 'Default', 'IndexedDB'), { recursive: true });
    writeFileSync(join(from, 'Default', 'IndexedDB', 'big'), Buffer.alloc(3 << 20));
    await assert.rejects(packProfile(from, 1 << 20), ProfileTooLarge);
  });

  it('refuses entries that leave the folder, come before their folder, repeat, or are not part of a profile', async () => {
    for (const path of ['../escape', 'Default/../../escape', '/etc/passwd', 'Default//x', 'Default/./x', 'a\\b'])
      assert.throws(() => checkEntryPath(path), BadProfileArchive, path);
    const cases: [string, [string, string, string?][]][] = [
      [
        'a parent folder name',
        [
          ['D', 'Default'],
          ['F', 'Default/../escaped', 'x'],
        ],
      ],
      ['a file before its folder', [['F', 'Default/Network/Cookies', 'x']]],
      [
        'a name given twice',
        [
          ['D', 'Default'],
          ['F', 'Default/Preferences', 'a'],
          ['F', 'Default/Preferences', 'b'],
        ],
      ],
      [
        'a part a profile does not keep',
        [
          ['D', 'Default'],
          ['F', 'Default/Extensions', 'x'],
        ],
      ],
    ];
    for (const [what, entries] of cases) {
      const to = fresh();
      await assert.rejects(unpackProfile(rawArchive(entries), to, null, 1 << 20), what);
      assert.equal(existsSync(join(to, '..', 'escaped')), false, what);
    }
    const to = fresh();
    await assert.rejects(
      unpackProfile(
        rawArchive([
          ['D', 'Default'],
          ['F', 'Default/Preferences', 'x'.repeat(2000)],
        ]),
        to,
        null,
        1000,
      ),
      ProfileTooLarge,
    );
  });
});

describe('profile seal', () => {
  const secret = 'a'.repeat(32);
  it('opens what it sealed for the same key and name only', () => {
    const box = new ProfileSealer(secret);
    const sealed = box.seal(Buffer.from('state'), 'key1', 'work');
    assert.equal(sealed.includes('state'), false);
    assert.equal(box.open(sealed, 'key1', 'work').toString(), 'state');
    assert.throws(() => box.open(sealed, 'key2', 'work'), ProfileSealError);
    assert.throws(() => box.open(sealed, 'key1', 'other'), ProfileSealError);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 20] = (tampered[tampered.length - 20] ?? 0) ^ 1;
    assert.throws(() => box.open(tampered, 'key1', 'work'), ProfileSealError);
  });

  it('opens profiles sealed with a previous secret after a rotation, and seals with the new one', () => {
    const old = new ProfileSealer(secret).seal(Buffer.from('state'), 'k', 'p');
    const rotated = new ProfileSealer('b'.repeat(32), [secret]);
    assert.equal(rotated.open(old, 'k', 'p').toString(), 'state');
    assert.equal(rotated.isCurrent(old), false);
    assert.equal(rotated.isCurrent(rotated.seal(Buffer.from('x'), 'k', 'p')), true);
    assert.throws(() => new ProfileSealer('b'.repeat(32)).open(old, 'k', 'p'), /secret this configuration does not hold/);
  });
});
