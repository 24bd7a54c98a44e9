import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGunzip, gzipSync } from 'node:zlib';
import { warcRecords } from '#service/search/sources/warc.ts';
import { ROOT } from './service.ts';

export const CORPUS = join(ROOT, '..', 'shared', 'corpus');

/** Run `npm run index -- ARGS` (the real CLI) against a DATA_DIR. */
export function runIndex(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'server/cli/index.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The same, without blocking this process: for tests that serve the pages being crawled, and for
 * tests that hold keep-alive connections to a server meanwhile (a blocked client cannot see the
 * server close an idle one, and sends its next request into the closing socket).
 */
export function runIndexAsync(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'server/cli/index.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

export async function search(
  url: string,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/v0/search`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`status ${res.status}: not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, json };
}

export type ManifestRow = { uri: string; canonical: string; set: string };

export function manifest(): ManifestRow[] {
  return readFileSync(join(CORPUS, 'manifest.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const [uri = '', canonical = '', set = ''] = l.split('\t');
      return { uri, canonical, set };
    });
}

/** A gzip-per-record WARC of the corpus records whose target address `keep` accepts. */
export async function sliceCorpus(out: string, keep: (uri: string) => boolean): Promise<number> {
  const parts: Buffer[] = [];
  let n = 0;
  const input = createReadStream(join(CORPUS, 'docs.warc.gz')).pipe(createGunzip());
  for await (const r of warcRecords(input)) {
    if (r.type !== 'response' || !r.targetUri || !keep(r.targetUri)) continue;
    const head = [...r.headers].map(([k, v]) => `${k}: ${v}`).join('\r\n');
    parts.push(gzipSync(Buffer.concat([Buffer.from(`WARC/1.0\r\n${head}\r\n\r\n`), r.content, Buffer.from('\r\n\r\n')])));
    n++;
  }
  writeFileSync(out, Buffer.concat(parts));
  return n;
}

/** One WARC record, as bytes. */
export function warcRecord(type: string, uri: string | null, content: string | Buffer, extra: Record<string, string> = {}): Buffer {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  const headers = {
    'WARC-Type': type,
    ...(uri ? { 'WARC-Target-URI': uri } : {}),
    'WARC-Record-ID': `<urn:uuid:${crypto.randomUUID()}>`,
    'Content-Length': String(body.length),
    ...extra,
  };
  return Buffer.concat([
    Buffer.from(
      `WARC/1.0\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n`,
    ),
    body,
    Buffer.from('\r\n\r\n'),
  ]);
}

export function httpResponse(
  body: string | Buffer,
  headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8' },
  status = '200 OK',
): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${status}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n`,
    ),
    b,
  ]);
}

export const page = (title: string, body: string, head = '') =>
  `<!DOCTYPE html><html><head><title>${title}</title>${head}</head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main>${body}</main><footer>Copyright footer text</footer></body></html>`;
