import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { ROOT } from '../helpers/service.ts';

/**
 * The lint rule that keeps owners apart must actually fire (docs/decisions/0002 and 0060): each case
 * is a file that would import across a boundary, by `#name` or by a relative path that climbs.
 */
describe('import boundaries', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const refusals = async (file: string, specifier: string) => {
    const code = `import { a } from '${specifier}';\nexport const b = a;\n`;
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').length;
  };
  const refused = async (file: string, specifier: string) =>
    assert.equal(await refusals(file, specifier), 1, `${file} must not import ${specifier}`);
  const allowed = async (file: string, specifier: string) =>
    assert.equal(await refusals(file, specifier), 0, `${file} may import ${specifier}`);

  it('keeps lib/shared/ free of both owners and of the processes', async () => {
    await refused('lib/shared/x.ts', '#service/config.ts');
    await refused('lib/shared/x.ts', '#portal/config.ts');
    await refused('lib/shared/protocol/x.ts', '../../service/config.ts');
    await refused('lib/shared/x.ts', '../../server/http/respond.ts');
    await refused('lib/shared/x.ts', '../../app/page.tsx');
    await allowed('lib/shared/protocol/x.ts', '../errors.ts');
  });

  it('keeps the service out of the portal and the portal out of the service, its key database included (decision 0107)', async () => {
    await refused('lib/service/search/x.ts', '#portal/search/search.ts');
    await refused('lib/service/x.ts', '../portal/config.ts');
    await refused('lib/portal/x.ts', '#service/browser/fleet.ts');
    await refused('lib/portal/live/x.ts', '../../service/keys/store.ts');
    await refused('lib/portal/keys/x.ts', '../../service/keys/key-database.ts');
    await refused('lib/portal/keys/x.ts', '#service/keys/key-database.ts');
    await refused('lib/portal/keys/x.ts', '#service/keys/operator.ts');
    await allowed('lib/portal/keys/x.ts', '#shared/protocol/operator.ts');
    await allowed('lib/portal/x.ts', '#shared/errors.ts');
    await allowed('lib/portal/live/x.ts', '../service-client/browser.ts');
  });

  it('keeps lib/ out of server/ and app/', async () => {
    await refused('lib/service/x.ts', '../../server/service/app.ts');
    await refused('lib/portal/deep/x.ts', '../../../app/page.tsx');
    await refused('lib/portal/x.ts', '#app/_lib/api.ts');
  });

  it('lets the portal UI use the portal and shared code, never the service or server/', async () => {
    await allowed('app/x.tsx', '#portal/search/highlight.ts');
    await allowed('app/x.tsx', '#shared/protocol/start.ts');
    await refused('app/x.tsx', '#service/search/rank.ts');
    await refused('app/x.tsx', '../server/main.ts');
    await refused('app/a/b/x.tsx', '../../../lib/service/config.ts');
    await refused('proxy.ts', '#service/config.ts');
  });

  it('keeps each process on its own side', async () => {
    await allowed('server/service/x.ts', '#service/browser/fleet.ts');
    await refused('server/service/x.ts', '#portal/runtime.ts');
    await refused('server/service/x.ts', '../portal/upgrade.ts');
    await allowed('server/portal/x.ts', '#portal/runtime.ts');
    await refused('server/portal/x.ts', '#service/browser/fleet.ts');
    await refused('server/portal/x.ts', '../service/app.ts');
    await refused('server/http/x.ts', '#portal/errors.ts');
    await refused('server/cli/portal-x.ts', '#service/keys/store.ts');
    await refused('server/cli/keys.ts', '#portal/keys/vault.ts');
    await refused('server/x.ts', '../app/page.tsx');
    await refused('server/cli/rotate-secret.ts', '#service/config.ts');
    await refused('server/cli/rotate-secret.ts', '#portal/config.ts');
    await allowed('server/cli/rotate-secret.ts', '#shared/config-schema.ts');
  });

  it('keeps the MCP server a client of the public interface (decision 0101)', async () => {
    await allowed('lib/mcp/x.ts', '#shared/config-schema.ts');
    await allowed('lib/mcp/tools/x.ts', '../limits.ts');
    await allowed('lib/mcp/x.ts', '@periscope/client');
    await refused('lib/mcp/x.ts', '#service/keys/auth.ts');
    await refused('lib/mcp/tools/x.ts', '../../service/browser/fleet.ts');
    await refused('lib/mcp/x.ts', '#portal/runtime.ts');
    await refused('lib/mcp/x.ts', '../../server/service/app.ts');
    await refused('lib/shared/x.ts', '#mcp/server.ts');
    await refused('lib/service/x.ts', '#mcp/server.ts');
    await allowed('server/service/routes/x.ts', '#mcp/server.ts');
    await allowed('server/cli/mcp.ts', '#mcp/server.ts');
    await refused('server/cli/mcp.ts', '#service/config.ts');
  });
});

describe('form controls of the portal (decisions 0115, 0116)', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const problems = async (file: string, jsx: string) => {
    const code = `export const A = (p: { v: string; s: (v: string) => void }) => (${jsx});\n`;
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').length;
  };

  it('refuses a controlled input or select outside app/_ui, which Input and Select are for', async () => {
    assert.equal(await problems('app/x/y.tsx', '<input value={p.v} onChange={(e) => p.s(e.target.value)} />'), 1);
    assert.equal(await problems('app/x/y.tsx', '<select value={p.v} onChange={(e) => p.s(e.target.value)}><option>a</option></select>'), 1);
    // Sliders, radios, checkboxes and uncontrolled controls are not text typed or chosen.
    assert.equal(await problems('app/x/y.tsx', '<input type="range" value={p.v} onChange={(e) => p.s(e.target.value)} />'), 0);
    assert.equal(await problems('app/x/y.tsx', '<input type="radio" value="a" checked onChange={() => p.s("a")} />'), 0);
    assert.equal(await problems('app/x/y.tsx', '<input name="q" defaultValue={p.v} />'), 0);
    assert.equal(await problems('app/_ui/y.tsx', '<input value={p.v} onChange={(e) => p.s(e.target.value)} />'), 0);
  });
});
