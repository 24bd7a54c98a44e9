import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endOf } from '../../clients/typescript/src/end.ts';
import {
  AuthenticationError,
  BadGatewayError,
  errorFromAnswer,
  InvalidRequestError,
  parseRetryAfter,
  PeriscopeError,
  RateLimitError,
  UnavailableError,
} from '../../clients/typescript/src/errors.ts';
import { deadline, retryDelayMs, sleep } from '../../clients/typescript/src/http.ts';

describe('the TypeScript client’s reading of answers', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter(' 0 '), 0);
    const now = Date.parse('2026-11-26T10:00:00Z');
    assert.equal(parseRetryAfter('Thu, 26 Nov 2026 10:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Thu, 26 Nov 2026 09:00:00 GMT', now), 0, 'a date in the past is now');
    for (const bad of [null, undefined, '', 'soon', '-3', '1.5']) assert.equal(parseRetryAfter(bad), undefined, String(bad));
  });

  it('maps each status to its error, with the service’s code, issues and Retry-After', () => {
    const invalid = errorFromAnswer(
      400,
      { error: 'bad', code: 'invalid', issues: [{ field: 'count', message: 'too small' }, { bogus: 1 }] },
      null,
    );
    assert.ok(invalid instanceof InvalidRequestError);
    assert.equal(invalid.field, 'count');
    assert.deepEqual(invalid.issues, [{ field: 'count', message: 'too small' }]);
    assert.equal(invalid.message, 'bad (400 invalid)');

    const limited = errorFromAnswer(429, { error: 'slow down', code: 'rate_limited' }, '12');
    assert.ok(limited instanceof RateLimitError);
    assert.equal(limited.retryAfter, 12);
    assert.ok(errorFromAnswer(401, {}, null) instanceof AuthenticationError);
    assert.ok(errorFromAnswer(502, 'upstream text', null) instanceof BadGatewayError);
    assert.equal(errorFromAnswer(502, 'upstream text', null).message, 'upstream text (502)', 'a body that is not JSON is the message');
    assert.ok(errorFromAnswer(503, {}, '3') instanceof UnavailableError);
    const other = errorFromAnswer(418, null, null);
    assert.equal(other.constructor, PeriscopeError);
    assert.equal(other.status, 418);
  });

  it('retries 429, 502 and 503 after their Retry-After, else backs off, and nothing else', () => {
    assert.equal(retryDelayMs(new RateLimitError('x', { retryAfter: 2 }), 0), 2000);
    const backoff = retryDelayMs(new BadGatewayError('x', {}), 2) ?? 0;
    assert.ok(backoff >= 1500 && backoff <= 2500, `${backoff}`);
    assert.equal(retryDelayMs(new InvalidRequestError('x', {}), 0), undefined);
    assert.equal(retryDelayMs(new Error('network'), 0), undefined);
  });

  it('names each close code of /start, and a stop of its own as client-closed', () => {
    assert.deepEqual(endOf(4410, 'stopped through the API', false), { reason: 'stopped', code: 4410, message: 'stopped through the API' });
    assert.equal(endOf(4408, '', false).reason, 'lifetime');
    assert.equal(endOf(1006, '', false).reason, 'connectionLost');
    assert.equal(endOf(4999, 'new', false).reason, 'unknown');
    assert.equal(endOf(1000, '', true).reason, 'client-closed');
  });

  it('ends an attempt at its time limit or the caller’s abort, whichever comes first', async () => {
    const timed = deadline(undefined, 10);
    await sleep(30);
    assert.equal(timed.signal.aborted, true);
    assert.equal((timed.explain(new Error('aborted'), 'GET /x') as Error).name, 'TimeoutError');
    timed.done();

    const controller = new AbortController();
    const cancelled = deadline(controller.signal, 10_000);
    controller.abort(new Error('mine'));
    assert.equal(cancelled.signal.aborted, true);
    assert.equal((cancelled.explain(new Error('aborted'), 'GET /x') as Error).message, 'mine', 'the caller’s own reason');
    cancelled.done();
    await assert.rejects(sleep(10_000, controller.signal), /mine/);
  });
});
