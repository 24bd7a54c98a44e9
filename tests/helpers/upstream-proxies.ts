import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

/**
 * Small real upstream proxies on loopback, standing in for a tenant's own: an HTTP CONNECT proxy
 * with Basic authentication and a SOCKS5 proxy with a username and password (RFC 1928, 1929). Each
 * records what it was asked to reach, so a test can prove that traffic went through it.
 */
export type FixtureProxy = {
  port: number;
  /** `host:port` of every tunnel it opened, in order. */
  tunnels: string[];
  /** Logins it refused. */
  refusedLogins: number;
  /** Bytes it carried from its clients to their destinations, once their tunnels were open. */
  carried: number;
  close(): Promise<void>;
};

type Login = { username: string; password: string };

function track(server: Server): { sockets: Set<Socket>; close: () => Promise<void> } {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return {
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function pipeTo(
  fixture: FixtureProxy,
  client: Socket,
  host: string,
  port: number,
  rest: Buffer,
  established: () => void,
  failed: () => void,
): void {
  const upstream = connect({ host, port });
  upstream.once('connect', () => {
    established();
    fixture.carried += rest.length;
    client.on('data', (c: Buffer) => (fixture.carried += c.length));
    if (rest.length) upstream.write(rest);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => failed());
  client.on('error', () => upstream.destroy());
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
}

/** A self-signed certificate for 127.0.0.1 and localhost (openssl), to serve an https proxy and to be trusted by its clients. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An HTTP proxy that answers CONNECT only, after checking Proxy-Authorization (Basic); inside TLS
 * (an https proxy) when given a key and certificate.
 */
export async function startConnectProxy(login: Login, host = '127.0.0.1', tls?: { key: string; cert: string }): Promise<FixtureProxy> {
  const expected = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
  const fixture: FixtureProxy = { port: 0, tunnels: [], refusedLogins: 0, carried: 0, close: async () => {} };
  const serve = (client: Socket) => {
    let buffer = Buffer.alloc(0);
    client.on('error', () => client.destroy());
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = buffer.subarray(0, end).toString('latin1').split('\r\n');
      const rest = buffer.subarray(end + 4);
      const m = /^CONNECT (\S+):(\d+) HTTP\/1\.1$/.exec(lines[0] ?? '');
      if (!m) return void client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n');
      const auth = lines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]*:\s*/, '');
      if (auth !== expected) {
        fixture.refusedLogins++;
        return void client.end(
          'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="fixture"\r\nContent-Length: 0\r\n\r\n',
        );
      }
      const target = `${m[1]}:${m[2]}`;
      pipeTo(
        fixture,
        client,
        m[1]!.replace(/^\[|\]$/g, ''),
        Number(m[2]),
        rest,
        () => {
          fixture.tunnels.push(target);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        },
        () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'),
      );
    };
    client.on('data', onData);
  };
  const server: Server = tls ? createTlsServer(tls, serve) : createServer(serve);
  const tracked = track(server);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  fixture.port = (server.address() as AddressInfo).port;
  fixture.close = tracked.close;
  return fixture;
}

/** A SOCKS5 proxy that takes only the username/password method and the CONNECT command. */
export async function startSocksProxy(login: Login, host = '127.0.0.1'): Promise<FixtureProxy> {
  const fixture: FixtureProxy = { port: 0, tunnels: [], refusedLogins: 0, carried: 0, close: async () => {} };
  const server = createServer((client) => {
    client.on('error', () => client.destroy());
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'login' | 'request' | 'done' = 'greeting';
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (stage === 'greeting') {
          if (buffer.length < 2 || buffer.length < 2 + buffer[1]!) return;
          const methods = [...buffer.subarray(2, 2 + buffer[1]!)];
          buffer = buffer.subarray(2 + buffer[1]!);
          if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
          client.write(Buffer.from([5, 2]));
          stage = 'login';
        } else if (stage === 'login') {
          const ulen = buffer[1];
          if (ulen === undefined || buffer.length < 3 + ulen) return;
          const plen = buffer[2 + ulen]!;
          if (buffer.length < 3 + ulen + plen) return;
          const username = buffer.subarray(2, 2 + ulen).toString('utf8');
          const password = buffer.subarray(3 + ulen, 3 + ulen + plen).toString('utf8');
          buffer = buffer.subarray(3 + ulen + plen);
          if (username !== login.username || password !== login.password) {
            fixture.refusedLogins++;
            return void client.end(Buffer.from([1, 1]));
          }
          client.write(Buffer.from([1, 0]));
          stage = 'request';
        } else if (stage === 'request') {
          if (buffer.length < 5) return;
          const type = buffer[3];
          const length = type === 1 ? 4 : type === 4 ? 16 : 1 + buffer[4]!;
          if (buffer.length < 4 + length + 2) return;
          const raw = buffer.subarray(4, 4 + length);
          const targetHost =
            type === 1
              ? [...raw].join('.')
              : type === 4
                ? (raw.toString('hex').match(/.{4}/g) ?? []).join(':')
                : raw.subarray(1).toString('utf8');
          const port = buffer.readUInt16BE(4 + length);
          const rest = buffer.subarray(4 + length + 2);
          client.off('data', onData);
          stage = 'done';
          const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
          pipeTo(
            fixture,
            client,
            targetHost,
            port,
            rest,
            () => {
              fixture.tunnels.push(`${targetHost}:${port}`);
              client.write(reply(0));
            },
            () => client.end(reply(5)),
          );
          return;
        } else return;
      }
    };
    client.on('data', onData);
  });
  const tracked = track(server);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  fixture.port = (server.address() as AddressInfo).port;
  fixture.close = tracked.close;
  return fixture;
}
