import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../helpers/ports.ts';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';

function listen(port: number): Promise<() => Promise<void>> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((done) => server.close(() => done()))));
  });
}

test('test ports lie below the ephemeral range (no outgoing connection can be given one before its server listens), each once, each free', async (t) => {
  if (!existsSync(RANGE)) return t.skip('no ephemeral range to read on this system');
  const low = Number(readFileSync(RANGE, 'utf8').trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  for (const port of ports) assert.ok(port >= 1024 && port < low, `${port} is not below ${low}`);
  assert.equal(new Set(ports).size, ports.length, 'one port handed out twice');
  const closers = await Promise.all(ports.map(listen));
  await Promise.all(closers.map((close) => close()));
});
