import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { newSecret, readRotateArgs, UsageError } from '../../server/cli/rotate-secret.ts';
import { ROOT } from '../helpers/service.ts';

const CURRENT = 'c'.repeat(40);
const NEW = 'n'.repeat(40);

/** The rules both rotate-secret commands share (server/cli/rotate-secret.ts), and how each command answers a bad one. */
describe('the rotate-secret commands’ shared arguments', () => {
  /** The words of the UsageError a call throws, or null when it throws none. */
  const refusal = (call: () => unknown): string | null => {
    try {
      call();
      return null;
    } catch (err) {
      assert.ok(err instanceof UsageError, `a UsageError, not ${String(err)}`);
      return err.message;
    }
  };
  const rules = (o: Partial<Parameters<typeof newSecret>[0]>) =>
    newSecret({
      newSecretEnv: undefined,
      fromFile: true,
      current: CURRENT,
      setInEnvironment: 'THE_SECRET is set in the environment',
      env: {},
      ...o,
    });

  it('reads --new-secret-env and --help, and refuses an unknown option, a missing value and a stray argument', () => {
    assert.deepEqual(readRotateArgs([]), { help: false, newSecretEnv: undefined });
    assert.deepEqual(readRotateArgs(['--new-secret-env', 'NEXT']), { help: false, newSecretEnv: 'NEXT' });
    assert.deepEqual(readRotateArgs(['--new-secret-env=NEXT']), { help: false, newSecretEnv: 'NEXT' });
    assert.deepEqual(readRotateArgs(['--help']), { help: true, newSecretEnv: undefined });
    assert.match(refusal(() => readRotateArgs(['--secret', 'x'])) ?? '', /Unknown option '--secret'/);
    assert.match(refusal(() => readRotateArgs(['--new-secret-env'])) ?? '', /--new-secret-env/);
    assert.match(refusal(() => readRotateArgs(['NEXT'])) ?? '', /Unexpected argument 'NEXT'/);
  });

  it('generates a secret for one kept in a file, and takes the named one trimmed', () => {
    assert.equal(rules({ generate: () => NEW }), NEW);
    assert.notEqual(rules({}), rules({}), 'each generated secret is new');
    assert.ok(rules({}).length >= 32);
    assert.equal(rules({ newSecretEnv: 'NEXT', env: { NEXT: `  ${NEW}\n` } }), NEW);
    assert.equal(rules({ fromFile: false, newSecretEnv: 'NEXT', env: { NEXT: NEW } }), NEW);
  });

  it('refuses a secret set in the environment without a new one named, a short, empty or unset one, and the current one', () => {
    assert.equal(
      refusal(() => rules({ fromFile: false })),
      'THE_SECRET is set in the environment: pass --new-secret-env VAR with the new secret in $VAR',
    );
    const short = 'NEXT must hold a secret of at least 32 characters';
    assert.equal(
      refusal(() => rules({ newSecretEnv: 'NEXT', env: { NEXT: 'x'.repeat(31) } })),
      short,
    );
    assert.equal(
      refusal(() => rules({ newSecretEnv: 'NEXT', env: { NEXT: ` ${'x'.repeat(31)} ` } })),
      short,
      'the spaces around it do not count',
    );
    assert.equal(
      refusal(() => rules({ newSecretEnv: 'NEXT', env: { NEXT: '   ' } })),
      short,
    );
    assert.equal(
      refusal(() => rules({ newSecretEnv: 'NEXT', env: {} })),
      short,
    );
    assert.equal(
      refusal(() => rules({ newSecretEnv: 'NEXT', env: { NEXT: `${CURRENT} ` } })),
      'the new secret is the same as the current one',
    );
  });

  it('makes each command answer a bad argument with its own name, its usage and status 2, and print its usage for --help', () => {
    for (const [file, name, usage] of [
      ['server/cli/portal-rotate-secret.ts', 'portal:rotate-secret', /npm run portal:rotate-secret -- --new-secret-env VAR/],
      ['server/cli/profiles-rotate-secret.ts', 'profiles:rotate-secret', /npm run profiles:rotate-secret -- --new-secret-env VAR/],
    ] as const) {
      const run = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, file), ...args], { cwd: ROOT, encoding: 'utf8' });
      const bad = run('--bogus');
      assert.equal(bad.status, 2, bad.stderr);
      assert.ok(bad.stderr.startsWith(`${name}: Unknown option '--bogus'`), bad.stderr);
      assert.match(bad.stderr, usage);
      const help = run('--help');
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, usage);
    }
  });
});
