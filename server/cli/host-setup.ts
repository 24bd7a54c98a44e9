/**
 * `npm install` runs this (postinstall): the browser sandbox needs two small programs of the
 * operating system, bubblewrap and socat (docs/decisions/0050-instance-isolation.md). Where they
 * are missing and this is a Debian or Ubuntu machine on which we are root, they are installed with
 * apt-get; otherwise the command to run is printed. It never fails the install: without them the
 * service starts, says why on /healthz, and refuses browsers until they are there.
 * PERISCOPE_SKIP_HOST_SETUP=1 skips it.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const NEEDED = [
  { program: 'bwrap', pkg: 'bubblewrap' },
  { program: 'socat', pkg: 'socat' },
];

function found(program: string): boolean {
  return ['/usr/bin', '/bin', '/usr/local/bin'].some((dir) => {
    try {
      accessSync(`${dir}/${program}`, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function main(): void {
  if (process.env.PERISCOPE_SKIP_HOST_SETUP === '1' || process.platform !== 'linux') return;
  const missing = NEEDED.filter((n) => !found(n.program)).map((n) => n.pkg);
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && found('apt-get');
  if (!canInstall) {
    console.warn(
      `periscope: the browser sandbox needs ${missing.join(' and ')}; install ${missing.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: sudo ${command}). Until then the service refuses to start browsers.`,
    );
    return;
  }
  console.log(`periscope: installing ${missing.join(' and ')} for the browser sandbox (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let result = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
  if (result.status !== 0) {
    // A fresh machine may not have read its package lists yet.
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    result = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
  }
  if (result.status !== 0) console.warn(`periscope: could not install ${missing.join(' ')}; run: ${command}`);
}

main();
