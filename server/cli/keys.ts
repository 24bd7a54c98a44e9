import { parseArgs } from 'node:util';
import { ConfigError } from '#shared/config-schema.ts';
import { asDomainError } from '#shared/errors.ts';
import { loadServiceConfig } from '#service/config.ts';
import { openKeyDatabase } from '#service/keys/key-database.ts';

const USAGE = `usage:
  npm run keys -- create --name NAME [--rate-per-minute N] [--max-instances N] [--actions-per-minute N] [--record]
  npm run keys -- list
  npm run keys -- record ID on|off     record the key's browsers from their next start (off by default)
  npm run keys -- revoke ID`;

function fail(message: string): never {
  console.error(`keys: ${message}\n${USAGE}`);
  process.exit(2);
}

function wholeNumber(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1_000_000) fail(`${flag} takes a whole number from 1 to 1000000`);
  return Number(text);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'rate-per-minute': { type: 'string' },
        'max-instances': { type: 'string' },
        'actions-per-minute': { type: 'string' },
        record: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const config = loadServiceConfig();
  // SQLite in DATA_DIR, or PostgreSQL when DATABASE_URL is set: where the service keeps its keys.
  const { keys, close } = await openKeyDatabase(config, {
    ratePerMinute: config.search.defaultRatePerMinute,
    maxInstances: config.browser.maxInstancesPerKey,
  });
  try {
    switch (command) {
      case 'create': {
        if (rest.length) fail(`unexpected argument ${rest[0]}`);
        if (!values.name?.trim()) fail('create needs --name NAME');
        const limits = {
          ratePerMinute: wholeNumber(values['rate-per-minute'], '--rate-per-minute'),
          maxInstances: wholeNumber(values['max-instances'], '--max-instances'),
          actionsPerMinute: wholeNumber(values['actions-per-minute'], '--actions-per-minute'),
        };
        const { key, token } = await keys.create(
          values.name,
          Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
          {
            record: values.record ?? false,
          },
        );
        console.log(
          `created key ${key.id} "${key.name}": ${key.ratePerMinute} searches/minute, ${key.maxInstances} concurrent browsers, ${key.actionsPerMinute ?? config.actions.defaultRatePerMinute} page actions/minute${key.record ? ', recorded' : ''}`,
        );
        console.log('the key is shown this once; store it now:');
        console.log(token);
        return;
      }
      case 'list': {
        const all = await keys.list();
        if (!all.length) return void console.log('no keys yet; create one with: npm run keys -- create --name NAME');
        console.log(['ID', 'NAME', 'RATE/MIN', 'MAX BROWSERS', 'ACTIONS/MIN', 'RECORD', 'CREATED', 'LAST USED', 'STATUS'].join('\t'));
        for (const k of all) {
          console.log(
            [
              k.id,
              k.name,
              k.ratePerMinute,
              k.maxInstances,
              k.actionsPerMinute ?? `${config.actions.defaultRatePerMinute} (default)`,
              k.record ? 'on' : 'off',
              k.createdAt.toISOString(),
              k.lastUsedAt?.toISOString() ?? '-',
              k.revokedAt ? 'revoked' : 'live',
            ].join('\t'),
          );
        }
        return;
      }
      case 'record': {
        const [id, setting, ...extra] = rest;
        if (!id || (setting !== 'on' && setting !== 'off') || extra.length) fail('record takes a key id and on or off');
        if (!(await keys.setRecord(id, setting === 'on'))) fail(`no key with id ${id}`);
        console.log(
          `browsers of ${id} are ${setting === 'on' ? 'recorded from their next start' : 'no longer recorded from their next start'}`,
        );
        return;
      }
      case 'revoke': {
        const [id, ...extra] = rest;
        if (!id || extra.length) fail('revoke takes exactly one key id');
        if (!(await keys.get(id))) fail(`no key with id ${id}`);
        console.log((await keys.revoke(id)) ? `revoked ${id}` : `${id} was already revoked`);
        return;
      }
      default:
        fail(`unknown command ${command}`);
    }
  } finally {
    await close();
  }
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const domain = asDomainError(err);
  if (err instanceof ConfigError || (domain && domain.status < 500)) {
    console.error(`keys: ${(err as Error).message}`);
    process.exit(2);
  }
  throw err;
}
