import { parseArgs } from 'node:util';
import { z } from 'zod';
import { portalMovePart } from '#portal/data/move-to-postgres.ts';
import { serviceMovePart } from '#service/move-to-postgres.ts';
import { ConfigError, dataDirVar, databaseUrlVar, parseEnv } from '#shared/config-schema.ts';
import { CopyRefused, moveIntoPostgres, type MovePart } from '#shared/sqlite-to-postgres.ts';

const USAGE = `usage: DATABASE_URL=postgres://… npm run move-to-postgres [-- --only portal|service]
Copies what DATA_DIR holds in SQLite into an empty PostgreSQL database, all in one transaction:
  the portal's data (DATA_DIR/portal.db): accounts, teams, stored keys, audit log, history, links;
  the service's keys and browser history (DATA_DIR/service.db).
Stop the portal and the service first. Afterwards start them with the same DATABASE_URL; the files in
DATA_DIR are left as they were. Stored keys stay sealed: keep the same key-encryption secret
(KEY_ENCRYPTION_SECRET, or copy DATA_DIR/secrets/ to the portal nodes), and NEXTAUTH_SECRET or
DATA_DIR/secrets/nextauth-secret likewise, or everyone signs in again.`;

const Env = z.object({
  DATA_DIR: dataDirVar,
  DATABASE_URL: databaseUrlVar.refine((v) => v !== undefined, 'must be set to the PostgreSQL database to copy into'),
});

function fail(message: string): never {
  console.error(`move-to-postgres: ${message}\n${USAGE}`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { only: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) return void console.log(USAGE);
  if (values.only !== undefined && values.only !== 'portal' && values.only !== 'service')
    fail(`--only takes portal or service, not ${values.only}`);
  const env = parseEnv(Env, process.env);
  const url = env.DATABASE_URL as string;
  const parts: MovePart[] = [];
  try {
    for (const [owner, file, movePart] of [
      ['portal', 'portal.db', portalMovePart],
      ['service', 'service.db', serviceMovePart],
    ] as const) {
      if (values.only && values.only !== owner) continue;
      const part = movePart(env.DATA_DIR);
      if (part) parts.push(part);
      else console.log(`${owner}: no ${file} in ${env.DATA_DIR}, nothing to copy`);
    }
    if (parts.length === 0) {
      console.error(`move-to-postgres: ${env.DATA_DIR} holds no SQLite data to copy`);
      process.exit(1);
    }
    const copied = await moveIntoPostgres(url, parts);
    for (const [owner, tables] of Object.entries(copied))
      console.log(
        `${owner}: copied ${Object.entries(tables)
          .map(([table, n]) => `${n} ${table}`)
          .join(', ')}`,
      );
  } finally {
    for (const part of parts) part.source.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`move-to-postgres: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`move-to-postgres: ${err instanceof CopyRefused ? 'refused: ' : ''}${(err as Error).message}`);
  process.exit(1);
});
