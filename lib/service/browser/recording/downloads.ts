import { watch, type FSWatcher } from 'node:fs';
import { listDownloads, type InstanceFiles } from '../files.ts';
import type { RecordingWriter } from './writer.ts';

/** How long the watch lets a burst of file-system events settle before it looks. */
const SETTLE_MS = 100;

/**
 * The downloads of a recorded browser, as `download` events (name and size) when Chromium has
 * finished each one: read from the instance's downloads folder itself, which every download lands
 * in whatever the client asked of CDP (the policy keeps every download behaviour inside it, 0050),
 * so the recording sees what the files API serves, and no client can hide one from it.
 */
export class DownloadWatch {
  readonly #files: InstanceFiles;
  readonly #out: RecordingWriter;
  readonly #seen = new Map<string, number>();
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;
  #looking: Promise<void> = Promise.resolve();

  constructor(files: InstanceFiles, out: RecordingWriter) {
    this.#files = files;
    this.#out = out;
  }

  start(): void {
    this.#watcher = watch(this.#files.folders.downloads, () => this.#soon());
    this.#watcher.on('error', () => this.stop());
  }

  /** Stop watching, after one last look (a download that completed just before the end is kept). */
  async stop(): Promise<void> {
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#look();
  }

  #soon(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      void this.#look();
    }, SETTLE_MS);
  }

  /** One look at a time, each after the one before: every finished file is told once. */
  #look(): Promise<void> {
    this.#looking = this.#looking.then(async () => {
      for (const file of await listDownloads(this.#files).catch(() => [])) {
        if (!file.complete || this.#seen.get(file.name) === file.size) continue;
        this.#seen.set(file.name, file.size);
        this.#out.event('download', { name: file.name, size: file.size });
      }
    });
    return this.#looking;
  }
}
