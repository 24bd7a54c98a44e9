import type { IncomingMessage } from 'node:http';
import { PayloadTooLarge, ValidationFailed } from '#shared/errors.ts';

/**
 * Read a request body of at most `limit` bytes. A declared Content-Length over the limit is refused
 * before any of the body is read; a body that turns out longer (chunked) is refused as soon as it
 * passes the limit, without reading the rest (answer such a request with `Connection: close`).
 * Invalid UTF-8 is a 400.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(new PayloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null, value?: string) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(value as string);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) return finish(new PayloadTooLarge(limit));
      chunks.push(c);
    };
    const onEnd = () => {
      try {
        finish(null, new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
      } catch {
        finish(new ValidationFailed([{ field: 'body', message: 'not valid UTF-8' }]));
      }
    };
    const onError = (err: Error) => finish(err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
