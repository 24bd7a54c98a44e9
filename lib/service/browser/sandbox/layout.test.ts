import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fontsConfig } from './layout.ts';

describe('fontsConfig', () => {
  it("reads the host's fontconfig, the binary's fonts and caches where it is told", () => {
    const conf = fontsConfig('/opt/chromium/fonts', '/tmp/fontconfig');
    assert.match(conf, /<include ignore_missing="yes">\/etc\/fonts\/fonts\.conf<\/include>/);
    assert.match(conf, /<dir>\/opt\/chromium\/fonts<\/dir>/);
    assert.match(conf, /<cachedir>\/tmp\/fontconfig<\/cachedir>/);
  });

  it("caches in the user's cache folder when given none, and names no extra folder when the binary has no fonts", () => {
    const conf = fontsConfig(null, null);
    assert.match(conf, /<cachedir prefix="xdg">fontconfig<\/cachedir>/);
    assert.equal(conf.match(/<dir>/g)?.length, 1, 'only /usr/share/fonts');
  });

  it('writes a host path as XML text', () => {
    const conf = fontsConfig('/srv/a&b/<fonts>', '/srv/c&d');
    assert.match(conf, /<dir>\/srv\/a&amp;b\/&lt;fonts&gt;<\/dir>/);
    assert.match(conf, /<cachedir>\/srv\/c&amp;d<\/cachedir>/);
    assert.doesNotMatch(conf, /a&b/);
  });
});
