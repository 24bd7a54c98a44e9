import { connect, type Socket } from 'node:net';

/**
 * A minimal HTTP/1.1 client for benchmarks: one kept-alive connection, one request at a time,
 * requests written as one buffer and answers read by Content-Length. On a two-core machine the
 * client shares the cores with the service it measures, and node:http's client costs about as
 * much CPU per request as the service's own HTTP handling; this one costs a fraction, so the
 * figures are the service's. Not a general client: no chunked bodies, no redirects.
 */
export class BenchConnection {
  readonly #socket: Socket;
  readonly #host: string;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: { status: number; body: Buffer }) => void; reject: (e: Error) => void } | null = null;

  private constructor(socket: Socket, host: string) {
    this.#socket = socket;
    this.#host = host;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
      this.#parse();
    });
    const fail = (err: Error) => {
      this.#waiting?.reject(err);
      this.#waiting = null;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(url: string): Promise<BenchConnection> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(u.port), u.hostname, () => resolve(new BenchConnection(socket, u.host)));
      socket.once('error', reject);
    });
  }

  #parse(): void {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0 || !this.#waiting) return;
    const head = this.#buffer.toString('latin1', 0, end);
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.#buffer.length < end + 4 + length) return;
    const status = Number(head.slice(9, 12));
    const body = this.#buffer.subarray(end + 4, end + 4 + length);
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    const w = this.#waiting;
    this.#waiting = null;
    w.resolve({ status, body });
  }

  post(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: Buffer }> {
    const payload = Buffer.from(body);
    let head = `POST ${path} HTTP/1.1\r\nhost: ${this.#host}\r\ncontent-length: ${payload.length}\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), payload]));
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}
