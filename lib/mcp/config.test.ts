import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '#shared/config-schema.ts';
import { loadMcpCliConfig } from './config.ts';
import { liveViewFrom } from './server.ts';

describe('npm run mcp configuration', () => {
  it('reads the key, the address and the limits, with defaults', () => {
    assert.deepEqual(loadMcpCliConfig({ PERISCOPE_API_KEY: 'psk_x' }), {
      apiKey: 'psk_x',
      baseUrl: undefined,
      portalUrl: undefined,
      idleMs: 300_000,
      maxTextChars: 40_000,
    });
    const config = loadMcpCliConfig({
      PERISCOPE_API_KEY: 'psk_x',
      PERISCOPE_URL: 'https://browser.example.com',
      MCP_SESSION_IDLE_SECONDS: '0',
      MCP_MAX_TEXT_CHARS: '5000',
    });
    assert.equal(config.baseUrl, 'https://browser.example.com');
    assert.equal(config.idleMs, 0);
    assert.equal(config.maxTextChars, 5000);
  });

  it('names every problem', () => {
    assert.throws(
      () => loadMcpCliConfig({ PERISCOPE_URL: 'not a url', MCP_SESSION_IDLE_SECONDS: 'soon' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => p.startsWith('PERISCOPE_API_KEY: is required')) &&
        err.problems.some((p) => p.startsWith('PERISCOPE_URL:')) &&
        err.problems.some((p) => p.startsWith('MCP_SESSION_IDLE_SECONDS:')),
    );
  });

  it('links the live view from the team page or a template', () => {
    assert.equal(liveViewFrom(undefined), undefined);
    assert.equal(liveViewFrom('https://portal.test/teams/t_1/')?.('br_a'), 'https://portal.test/teams/t_1/browsers/br_a');
    assert.equal(liveViewFrom('https://portal.test/live/{id}?x=1')?.('br_a'), 'https://portal.test/live/br_a?x=1');
  });
});
