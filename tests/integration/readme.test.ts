import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, startService, type ServiceProcess } from '../helpers/service.ts';

/** The README's commands and snippet, run as a newcomer would run them, so that the README stays true. */
describe('the README, as written', () => {
  let service: ServiceProcess;
  before(async () => {
    service = await startService({ BROWSER_POOL_SIZE: '0' });
  });
  after(() => service?.stop());

  it('runs the Playwright snippet as it stands, saved as the .mjs file the README names', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const name = /Save this as `([\w.-]+\.mjs)` in the clone/.exec(readme)?.[1];
    assert.ok(name, 'the README names the file to save the snippet as');
    const snippet = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(name)))?.[1];
    assert.ok(snippet?.includes('connectOverCDP'), 'the snippet follows');
    // In the clone, as the README says, so that `playwright` and `ws` resolve from its node_modules.
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'readme-'));
    try {
      writeFileSync(join(dir, name), snippet ?? '');
      const key = service.createKey({ name: 'readme' }).token;
      const run = spawnSync(process.execPath, [join(dir, name)], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PERISCOPE_KEY: key, PERISCOPE_URL: service.url },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout.trim(), /^br_\S+ Hello from Periscope$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a missing index source instead of failing obscurely', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'readme-index-'));
    try {
      const run = spawnSync(process.execPath, [join(ROOT, 'server/cli/index.ts'), '../shared-missing/corpus/docs.warc.gz'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, DATA_DIR: dataDir },
      });
      assert.equal(run.status, 1);
      assert.match(run.stderr + run.stdout, /failed \.\.\/shared-missing\/corpus\/docs\.warc\.gz: no such file or folder \(\/.+\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
