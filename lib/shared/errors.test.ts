import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BadGateway,
  BadRequest,
  DomainError,
  ERROR_STATUS,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  UpgradeRequired,
  ValidationFailed,
  asDomainError,
  isErrorCode,
  toDomainError,
  type ErrorCode,
} from './errors.ts';

describe('one error shape', () => {
  it('gives every error a code from the list, the status the list names, and one body shape', () => {
    const cases: [DomainError, ErrorCode][] = [
      [new BadRequest('x'), 'bad_request'],
      [new ValidationFailed([{ field: 'query', message: 'required' }]), 'invalid'],
      [new Unauthorized(), 'unauthorized'],
      [new NotFound(), 'not_found'],
      [new MethodNotAllowed(['POST']), 'method_not_allowed'],
      [new PayloadTooLarge(10), 'payload_too_large'],
      [new UpgradeRequired(), 'upgrade_required'],
      [new TooManyRequests('slow down', 2.2), 'rate_limited'],
      [new BadGateway('index down'), 'bad_gateway'],
      [new ServiceUnavailable('full', 3), 'unavailable'],
    ];
    for (const [e, code] of cases) {
      assert.equal(e.code, code);
      assert.equal(e.status, ERROR_STATUS[code], code);
      const body = e.body();
      assert.deepEqual(Object.keys(body).slice(0, 2), ['error', 'code'], code);
      assert.equal(body.error, e.message);
      assert.equal(body.code, code);
    }
    assert.deepEqual(new ValidationFailed([{ field: 'query', message: 'required' }]).body().issues, [
      { field: 'query', message: 'required' },
    ]);
    assert.equal(new TooManyRequests('x', 2.2).headers['retry-after'], '3');
    assert.equal(new Unauthorized().headers['www-authenticate'], 'Bearer');
  });

  it('lets a status differ from the code only when asked', () => {
    assert.equal(new DomainError('conflict', 'busy').status, 409);
    assert.equal(new DomainError('upstream_failed', 'x', { status: 504 }).status, 504);
  });

  it('knows its own codes and nothing else', () => {
    assert.equal(isErrorCode('rate_limited'), true);
    assert.equal(isErrorCode('toString'), false);
    assert.equal(isErrorCode('RATE_LIMITED'), false);
    assert.equal(isErrorCode(429), false);
  });

  it("recognises an error from another bundle's copy of this module by its registered mark, and nothing by shape", () => {
    // What Next's route bundle sees when the custom server's copy threw: same symbol, another class.
    const foreign = Object.assign(new Error('from the other graph'), {
      [Symbol.for('periscope.domain-error')]: true,
      code: 'not_found',
      status: 404,
    });
    assert.equal(asDomainError(foreign), foreign);
    const lookalike = Object.assign(new Error('looks like one'), { code: 'not_found', status: 404, body: () => ({}) });
    assert.equal(asDomainError(lookalike), null);
    assert.equal(asDomainError('text'), null);
    const internal = toDomainError(new TypeError('secret detail'));
    assert.deepEqual([internal.status, internal.body()], [500, { error: 'internal error', code: 'internal' }]);
  });
});
