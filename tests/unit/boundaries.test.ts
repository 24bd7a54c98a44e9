import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { ROOT } from '../helpers/service.ts';

/** The lint rule that keeps the layers apart must actually fire (docs/decisions/0002). */
describe('import boundaries', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  };

  it('forbids lib/ from importing server/ or app/', async () => {
    assert.equal((await lint('lib/x.ts', "import { a } from '../server/service/app.ts';\nexport const b = a;\n")).length, 1);
    assert.equal((await lint('lib/deep/x.ts', "import { a } from '../../app/page.tsx';\nexport const b = a;\n")).length, 1);
  });

  it('forbids app/ from importing server/', async () => {
    assert.equal((await lint('app/x.tsx', "import { a } from '../server/main.ts';\nexport const b = a;\n")).length, 1);
  });

  it('forbids server/ from importing app/', async () => {
    assert.equal((await lint('server/x.ts', "import { a } from '../app/page.tsx';\nexport const b = a;\n")).length, 1);
  });

  it('allows app/ and server/ to import lib/', async () => {
    assert.deepEqual(await lint('app/x.tsx', "import { a } from '../lib/errors.ts';\nexport const b = a;\n"), []);
    assert.deepEqual(await lint('server/x.ts', "import { a } from '../lib/errors.ts';\nexport const b = a;\n"), []);
  });
});
