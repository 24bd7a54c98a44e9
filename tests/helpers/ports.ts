import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's ephemeral range: the ports `listen(0)` hands out, and the local ports of every
 * outgoing connection (to Redis, PostgreSQL, Chromium...). A port picked from it and closed can be
 * taken by such a connection before the child process that was given it listens, so test ports
 * come from below it instead.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux: the IANA dynamic range starts here
  }
  return 49152;
}

/** Read once: the range is the kernel's setting, not the moment's. */
const HIGH = ephemeralLow();
/** Test ports start here, above the ports servers commonly use; just above the privileged ones
 * when the ephemeral range starts low. */
const LOWEST = HIGH > 20000 ? 10000 : 1024;
const given = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nobody listens on right now and no outgoing connection can be given, for a server
 * a test starts (possibly in another process, so the port is named before it listens). Never the
 * same port twice in one test process.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGH - LOWEST));
    if (given.has(port)) continue;
    given.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${HIGH}`);
}
