import { parseArgs } from 'node:util';
import { loadPortalConfig } from '#portal/config.ts';
import { ConfigError } from '#shared/config-schema.ts';
import { openPortalData } from '#portal/data/open.ts';
import { issuePasswordReset } from '#portal/accounts/accounts.ts';
import { SignInThrottle } from '#portal/accounts/throttle.ts';

const USAGE = `usage:
  npm run portal:users -- reset-link EMAIL       print a one-time link (valid 1 hour) that sets a new password;
                                                 using it ends every session of the account and lifts its lock
  npm run portal:users -- unlock EMAIL           lift the sign-in lock of an account now
  npm run portal:users -- unlock --address IP    lift the lock of a client address
  npm run portal:users -- sign-out EMAIL         end every session of an account ("sign out everywhere")
The portal may keep running: these change its data (DATA_DIR/portal.db, or PostgreSQL at DATABASE_URL),
which it reads on every request.`;

function fail(message: string, code = 2): never {
  console.error(`portal:users: ${message}\n${USAGE}`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { address: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (err) {
    fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return void console.log(USAGE);
  const [command, email, ...extra] = positionals;
  if (extra.length) fail(`unexpected arguments: ${extra.join(' ')}`);
  const config = loadPortalConfig();
  const data = await openPortalData(config);
  try {
    const account = async () => {
      if (!email) fail(`${command} needs an email address`);
      const user = await data.userByEmail(email.trim().toLowerCase());
      if (!user) fail(`no account has the address ${email}`, 1);
      return user;
    };
    switch (command) {
      case 'reset-link': {
        const user = await account();
        const reset = await issuePasswordReset(data, user.email, config.publicUrl);
        if (!reset) fail(`no account has the address ${email}`, 1);
        console.log(`One-time reset link for ${user.email}, valid until ${new Date(reset.expiresAt).toISOString()}:\n${reset.url}`);
        return;
      }
      case 'unlock': {
        const throttle = new SignInThrottle(data, config.signIn);
        if (values.address) {
          if (email) fail('give an email or --address, not both');
          console.log(
            (await throttle.unlockAddress(values.address)) ? `unlocked ${values.address}` : `${values.address} had no failed attempts`,
          );
          return;
        }
        const user = await account();
        console.log((await throttle.unlock(user.email)) ? `unlocked ${user.email}` : `${user.email} had no failed attempts`);
        return;
      }
      case 'sign-out': {
        const user = await account();
        await data.endSessions(user.id);
        console.log(`ended every session of ${user.email}`);
        return;
      }
      default:
        fail(command ? `unknown command ${command}` : 'give a command');
    }
  } finally {
    await data.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`portal:users: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
