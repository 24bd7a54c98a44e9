import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Memory and process-count limits per instance, where the kernel offers them to this process:
 * cgroup v2 (one hierarchy) or v1 (a hierarchy per controller). The service makes one folder of its
 * own under the cgroup it runs in (or the hierarchy's root when that is not visible) and a child per
 * instance; the launcher moves the instance's first process in before anything else starts.
 */
export type Limits = { memoryBytes: number; pids: number };

type Controller = { name: 'memory' | 'pids'; dir: string; limitFile: string };

export type CgroupSupport = { version: 1 | 2; controllers: Controller[] };

/** What this host offers, with a folder of this service's own under each controller; null and a reason if nothing. */
export async function prepareCgroups(tag: string): Promise<{ support: CgroupSupport | null; problem: string | null }> {
  let mountinfo: string;
  let own: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    own = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return { support: null, problem: 'no /proc/self/cgroup' };
  }
  const mounts = mountinfo
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length > 9);
  const v1 = (name: string) =>
    mounts.find((f) => f[f.indexOf('-') + 1] === 'cgroup' && (f[f.indexOf('-') + 3] ?? '').split(',').includes(name))?.[4];
  const v2 = mounts.find((f) => f[f.indexOf('-') + 1] === 'cgroup2')?.[4];
  const pathIn = (hierarchy: string) =>
    own
      .split('\n')
      .map((l) => l.split(':'))
      .find((p) => p[1] === hierarchy)?.[2] ?? '/';
  const folder = (mount: string, path: string) => (existsSync(join(mount, path)) ? join(mount, path) : mount);

  const controllers: Controller[] = [];
  const problems: string[] = [];
  const memory1 = v1('memory');
  const pids1 = v1('pids');
  if (memory1 || pids1) {
    for (const [name, mount, limitFile] of [
      ['memory', memory1, 'memory.limit_in_bytes'],
      ['pids', pids1, 'pids.max'],
    ] as const) {
      if (!mount) continue;
      const dir = join(folder(mount, pathIn(name)), `periscope-${tag}`);
      try {
        await mkdir(dir, { recursive: true });
        controllers.push({ name, dir, limitFile });
      } catch (err) {
        problems.push(`${name}: ${(err as Error).message}`);
      }
    }
    return controllers.length
      ? { support: { version: 1, controllers }, problem: problems.join('; ') || null }
      : { support: null, problem: problems.join('; ') };
  }
  if (!v2) return { support: null, problem: 'no cgroup hierarchy is mounted' };
  const parent = folder(v2, pathIn(''));
  const dir = join(parent, `periscope-${tag}`);
  try {
    const available = (await readFile(join(parent, 'cgroup.controllers'), 'utf8')).split(/\s+/);
    if (!available.includes('memory') || !available.includes('pids'))
      return { support: null, problem: `cgroup v2 at ${parent} does not offer memory and pids` };
    await mkdir(dir, { recursive: true });
    // Controllers must be enabled for the children of our folder (our folder holds no process itself).
    await writeFile(join(dir, 'cgroup.subtree_control'), '+memory +pids');
    return {
      support: {
        version: 2,
        controllers: [
          { name: 'memory', dir, limitFile: 'memory.max' },
          { name: 'pids', dir, limitFile: 'pids.max' },
        ],
      },
      problem: null,
    };
  } catch (err) {
    return { support: null, problem: `cgroup v2 at ${parent}: ${(err as Error).message}` };
  }
}

/** Remove this service's own cgroup folders (at shutdown, once every instance's is gone). */
export async function removeServiceCgroups(support: CgroupSupport): Promise<void> {
  for (const dir of new Set(support.controllers.map((c) => c.dir))) await rmdir(dir).catch(() => {});
}

/** One instance's cgroups: folders to join (one per hierarchy) and their removal. */
export class InstanceCgroups {
  readonly folders: string[];
  private constructor(folders: string[]) {
    this.folders = folders;
  }

  static async create(support: CgroupSupport, name: string, limits: Limits): Promise<InstanceCgroups> {
    const folders = new Set<string>();
    for (const c of support.controllers) {
      const dir = join(c.dir, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, c.limitFile), String(c.name === 'memory' ? limits.memoryBytes : limits.pids));
      folders.add(dir);
    }
    return new InstanceCgroups([...folders]);
  }

  /** Processes still in the instance's cgroups. */
  async processes(): Promise<number[]> {
    const pids = new Set<number>();
    for (const dir of this.folders) {
      const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const line of text.split('\n')) if (line.trim()) pids.add(Number(line));
    }
    return [...pids];
  }

  /** Remove the folders (their processes must be gone; a few retries while the kernel lets go of them). */
  async remove(): Promise<void> {
    for (const dir of this.folders) {
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          await rmdir(dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    }
  }
}

/** Memory peak and current use of an instance, where the hierarchy reports them (bytes). */
export async function memoryUsage(folders: readonly string[]): Promise<number | null> {
  for (const dir of folders) {
    for (const file of ['memory.current', 'memory.usage_in_bytes']) {
      const text = await readFile(join(dir, file), 'utf8').catch(() => null);
      if (text) return Number(text.trim());
    }
  }
  return null;
}
