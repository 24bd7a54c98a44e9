import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { sandboxWaiting, startSandboxed } from './spawn.ts';

/** A stand-in for a sandbox: a shell with the same pipes on 0 and 1. */
const sandbox = (script: string) => spawn('/bin/sh', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });

describe('sandboxWaiting', () => {
  it('resolves once the sandbox says it waits, even when that comes in pieces', async () => {
    const child = sandbox("printf 'wai'; sleep 0.05; printf 'ting\\n'; read -r line; echo \"got $line\" > /dev/null");
    await sandboxWaiting(child, 5000);
    assert.equal(child.exitCode, null, 'still waiting for its start');
    startSandboxed(child, { width: 800, height: 600 });
    assert.equal(await new Promise((r) => child.once('exit', r)), 0);
  });

  it('rejects when the sandbox exits first, saying how', async () => {
    await assert.rejects(sandboxWaiting(sandbox('exit 3'), 5000), /exited before it was ready \(code 3/);
  });

  it('rejects when the sandbox takes too long', async () => {
    const child = sandbox('sleep 5');
    await assert.rejects(sandboxWaiting(child, 100), /not ready within 100 ms/);
    child.kill('SIGKILL');
  });
});

describe('startSandboxed', () => {
  it('sends the window as one WIDTH,HEIGHT line and closes the pipe', async () => {
    const child = sandbox('read -r line; read -r more && exit 1; [ "$line" = "1280,720" ]');
    startSandboxed(child, { width: 1280, height: 720 });
    assert.equal(await new Promise((r) => child.once('exit', r)), 0);
  });
});
