import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The host folders of one instance, under DATA_DIR/browsers/<name>/: its home (profile, caches),
 * its downloads, the files uploaded for it, and `run/` for its egress socket. Home and downloads
 * belong to the instance's uid; uploads and run to the service. All of it goes with the instance.
 */
export type InstanceFolders = {
  name: string;
  root: string;
  home: string;
  downloads: string;
  uploads: string;
  run: string;
};

/**
 * Create (or adopt) the folder that holds every instance's folders: owned by the service, not a
 * symlink, writable by nobody else (it usually sits in a shared temp folder), walkable by all.
 */
export async function prepareInstancesDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const stat = await lstat(dir);
  const me = process.getuid?.() ?? stat.uid;
  if (!stat.isDirectory() || stat.uid !== me)
    throw new Error(`${dir} is not a folder owned by this service's user; set BROWSER_INSTANCES_DIR elsewhere`);
  await chmod(dir, 0o711);
  return dir;
}

/**
 * The folder of a prepared launch is named `ready-<name>` until its Chromium starts, so that what
 * waits and what runs can be told apart in the instances folder (chromium.ts `PreparedLaunch`).
 */
export const PREPARED_PREFIX = 'ready-';

function foldersAt(root: string, name: string): InstanceFolders {
  return {
    name,
    root,
    home: join(root, 'home'),
    downloads: join(root, 'downloads'),
    uploads: join(root, 'uploads'),
    run: join(root, 'run'),
  };
}

export async function createInstanceFolders(
  instancesDir: string,
  owner: number | null,
  o: { prepared?: boolean } = {},
): Promise<InstanceFolders> {
  const name = `b-${randomBytes(6).toString('hex')}`;
  const folders = foldersAt(join(instancesDir, `${o.prepared ? PREPARED_PREFIX : ''}${name}`), name);
  await mkdir(folders.root, { mode: 0o711 }).catch(async (err: NodeJS.ErrnoException) => {
    // The instances folder itself is gone (a temp cleaner, or another service on the same folder
    // that removed it empty as it stopped): made again, with the same checks, as at start.
    if (err.code !== 'ENOENT') throw err;
    await prepareInstancesDir(instancesDir);
    await mkdir(folders.root, { mode: 0o711 });
  });
  await Promise.all([
    mkdir(folders.home, { mode: 0o700 }),
    mkdir(folders.downloads, { mode: 0o700 }),
    mkdir(folders.uploads, { mode: 0o755 }),
    mkdir(folders.run, { mode: 0o755 }),
  ]);
  if (owner !== null) await Promise.all([chown(folders.home, owner, owner), chown(folders.downloads, owner, owner)]);
  return folders;
}

/**
 * A prepared launch's folders under their running name. A sandbox made with them keeps them: it
 * holds them by descriptor, not by path.
 */
export async function promoteInstanceFolders(folders: InstanceFolders): Promise<InstanceFolders> {
  const running = foldersAt(join(dirname(folders.root), folders.name), folders.name);
  if (running.root !== folders.root) await rename(folders.root, running.root);
  return running;
}

export async function removeInstanceFolders(folders: Pick<InstanceFolders, 'root'>): Promise<void> {
  await rm(folders.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/** Remove every instance folder left under `instancesDir` (by a service that did not shut down); returns how many. */
export async function removeStaleInstanceFolders(instancesDir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(instancesDir);
  } catch {
    return 0;
  }
  await Promise.all(names.map((n) => rm(join(instancesDir, n), { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })));
  return names.length;
}
