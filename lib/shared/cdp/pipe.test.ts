import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { CdpPipe } from './pipe.ts';

function setup() {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const pipe = new CdpPipe(toBrowser, fromBrowser);
  const messages: string[] = [];
  const buffers: Buffer[] = [];
  pipe.on('message', (m) => {
    buffers.push(m);
    messages.push(m.toString('utf8'));
  });
  let closes = 0;
  pipe.on('close', () => closes++);
  const written: Buffer[] = [];
  toBrowser.on('data', (chunk: Buffer) => written.push(chunk));
  return { toBrowser, fromBrowser, pipe, messages, buffers, written, closes: () => closes };
}

describe('CdpPipe: reading', () => {
  it('reads one message ended by NUL', async () => {
    const t = setup();
    t.fromBrowser.write('{"id":1,"result":{}}\0');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1,"result":{}}']);
  });

  it('reads several messages in one chunk', async () => {
    const t = setup();
    t.fromBrowser.write('{"id":1}\0{"id":2}\0{"method":"A.b"}\0');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1}', '{"id":2}', '{"method":"A.b"}']);
  });

  it('reads a message split across many chunks, byte by byte, UTF-8 included', async () => {
    const t = setup();
    const text = JSON.stringify({ id: 1, result: { value: 'héllo 日本語 😀 '.repeat(20) } });
    const bytes = Buffer.from(`${text}\0${text}\0`);
    for (let i = 0; i < bytes.length; i++) t.fromBrowser.write(bytes.subarray(i, i + 1));
    await tick();
    assert.deepEqual(t.messages, [text, text]);
  });

  it('reads messages that start and end mid-chunk', async () => {
    const t = setup();
    t.fromBrowser.write('{"id":1,"res');
    t.fromBrowser.write('ult":{}}\0{"id":2,');
    t.fromBrowser.write('"result":{}}\0{"id"');
    t.fromBrowser.write(':3}');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1,"result":{}}', '{"id":2,"result":{}}']);
    t.fromBrowser.write('\0');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1,"result":{}}', '{"id":2,"result":{}}', '{"id":3}']);
  });

  it('splits at a NUL that begins a chunk', async () => {
    const t = setup();
    t.fromBrowser.write('{"id":1}');
    t.fromBrowser.write('\0{"id":2}');
    t.fromBrowser.write('\0');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1}', '{"id":2}']);
  });

  it('skips empty messages', async () => {
    const t = setup();
    t.fromBrowser.write('\0\0{"id":1}\0\0\0{"id":2}\0');
    await tick();
    assert.deepEqual(t.messages, ['{"id":1}', '{"id":2}']);
  });

  it('reads a large message in many chunks and many messages in one', async () => {
    const t = setup();
    const big = JSON.stringify({ id: 1, result: { data: 'x'.repeat(5 * 1024 * 1024) } });
    const bytes = Buffer.from(`${big}\0`);
    for (let at = 0; at < bytes.length; at += 65536) t.fromBrowser.write(bytes.subarray(at, at + 65536));
    const small = Array.from({ length: 1000 }, (_, i) => `{"id":${i + 2}}`);
    t.fromBrowser.write(small.map((s) => `${s}\0`).join(''));
    await tick();
    assert.equal(t.messages.length, 1001);
    assert.equal(t.messages[0], big);
    assert.deepEqual(t.messages.slice(1), small);
  });

  it('hands on the bytes as written (no decoding)', async () => {
    const t = setup();
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x00]);
    t.fromBrowser.write(bytes);
    await tick();
    assert.deepEqual(t.buffers, [bytes.subarray(0, 4)]);
  });

  it('pauses and resumes reading', async () => {
    const t = setup();
    t.pipe.pause();
    t.fromBrowser.write('{"id":1}\0');
    await tick();
    assert.deepEqual(t.messages, []);
    t.pipe.resume();
    await tick();
    assert.deepEqual(t.messages, ['{"id":1}']);
  });
});

describe('CdpPipe: writing', () => {
  it('ends each message with NUL', async () => {
    const t = setup();
    assert.equal(t.pipe.send('{"id":1,"method":"A.b"}'), true);
    t.pipe.send('{"id":2,"method":"A.b"}');
    await tick();
    assert.equal(Buffer.concat(t.written).toString(), '{"id":1,"method":"A.b"}\0{"id":2,"method":"A.b"}\0');
  });

  it('reports a full pipe and resolves drain() once it has room', async () => {
    const chunks: Buffer[] = [];
    let release: (() => void) | null = null;
    const toBrowser = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        release = cb;
      },
    });
    const pipe = new CdpPipe(toBrowser, new PassThrough());
    await pipe.drain(); // nothing written yet
    assert.equal(pipe.send('{"id":1,"method":"Page.enable"}'), false);
    let drained = false;
    const draining = pipe.drain().then(() => (drained = true));
    await tick();
    assert.equal(drained, false);
    (release as unknown as () => void)();
    await draining;
    assert.equal(drained, true);
    assert.equal(Buffer.concat(chunks).toString(), '{"id":1,"method":"Page.enable"}\0');
  });
});

describe('CdpPipe: closing', () => {
  it("closes once when Chromium's side ends, and drops a partial message", async () => {
    const t = setup();
    t.fromBrowser.write('{"id":1}\0{"id":2');
    t.fromBrowser.end();
    await once(t.pipe, 'close');
    await tick();
    assert.equal(t.pipe.closed, true);
    assert.equal(t.closes(), 1);
    assert.deepEqual(t.messages, ['{"id":1}']);
  });

  it('closes on an error of either stream', async () => {
    const a = setup();
    a.fromBrowser.destroy(new Error('EPIPE'));
    await tick();
    assert.equal(a.pipe.closed, true);
    assert.equal(a.closes(), 1);

    const b = setup();
    b.toBrowser.destroy(new Error('EPIPE'));
    await tick();
    assert.equal(b.pipe.closed, true);
    assert.equal(b.closes(), 1);
  });

  it('sends nothing once closed', async () => {
    const t = setup();
    t.fromBrowser.destroy();
    await tick();
    assert.equal(t.pipe.closed, true);
    assert.equal(t.pipe.send('{"id":1,"method":"A.b"}'), false);
    await tick();
    assert.deepEqual(t.written, [], 'nothing reached the browser');
  });
});
