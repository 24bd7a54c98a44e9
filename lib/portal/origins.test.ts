import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedOrigins } from './origins.ts';

describe('allowedOrigins', () => {
  const config = { publicUrl: 'https://periscope.example.com/', trustProxy: false };

  it('allows the public address and the address the request was sent to', () => {
    assert.deepEqual(allowedOrigins(config, '10.0.0.21:3000', null), ['https://periscope.example.com', 'http://10.0.0.21:3000']);
    assert.deepEqual(allowedOrigins(config, null, null), ['https://periscope.example.com']);
  });

  it('believes a proxy about the scheme only when told to trust it', () => {
    assert.deepEqual(allowedOrigins(config, 'node:3000', 'https'), ['https://periscope.example.com', 'http://node:3000']);
    assert.deepEqual(allowedOrigins({ ...config, trustProxy: true }, 'node:3000', 'https, http'), [
      'https://periscope.example.com',
      'https://node:3000',
    ]);
    assert.deepEqual(allowedOrigins({ ...config, trustProxy: true }, 'node:3000', ''), [
      'https://periscope.example.com',
      'http://node:3000',
    ]);
  });
});
