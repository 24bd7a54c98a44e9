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

  /** The ```js block that follows "Save this as `NAME`" in the README. */
  function snippet(name: string): string {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const at = new RegExp(`save\\s+this\\s+as\\s+\`${name.replace('.', '\\.')}\``, 'i').exec(readme)?.index ?? -1;
    assert.ok(at >= 0, `the README names ${name} as a file to save`);
    const code = /```js\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
    assert.ok(code?.includes('connect'), `a snippet follows ${name}`);
    return code ?? '';
  }

  /** Run a snippet saved in the clone, as the README says, so that its imports resolve from its node_modules. */
  function runSaved(name: string): { status: number | null; stdout: string; stderr: string } {
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'readme-'));
    try {
      writeFileSync(join(dir, name), snippet(name));
      const key = service.createKey({ name: 'readme' }).token;
      return spawnSync(process.execPath, [join(dir, name)], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PERISCOPE_API_KEY: key, PERISCOPE_URL: service.url },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('runs the client library snippet as it stands', () => {
    const run = runSaved('try-periscope.mjs');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout.trim(), /^br_\S+ Hello from Periscope\n0 results$/);
  });

  it('runs the raw three-step snippet as it stands', () => {
    const run = runSaved('try-raw.mjs');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout.trim(), /^br_\S+ Hello from Periscope$/);
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
