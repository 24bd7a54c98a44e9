import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BrowserHistory } from '../history.ts';
import type { Instance } from '../fleet.ts';
import { DownloadWatch } from './downloads.ts';
import { Recorder, type RecorderOptions } from './recorder.ts';
import { RecordingWriter } from './writer.ts';

export type RecordingsOptions = {
  /** One folder per recorded browser, named by its id. */
  dir: string;
  maxBytes: number;
  fps: number;
  history: BrowserHistory;
  log: Logger;
  /** Why a connection to `host` failed, as the egress proxy judges it, for a page that did not load. */
  explainUnreachable?: (host: string) => Promise<string>;
};

const SCREEN: Omit<RecorderOptions, 'fps'> = { maxWidth: 1280, maxHeight: 1280, jpegQuality: 60 };

/**
 * The recordings of the browsers whose key records them: begun before the client gets its
 * browser, so nothing it does is missed; finished when the browser ends; removed when they expire.
 */
export class Recordings {
  readonly #opts: RecordingsOptions;
  readonly #live = new Map<string, { recorder: Recorder; downloads: DownloadWatch; writer: RecordingWriter }>();

  constructor(opts: RecordingsOptions) {
    this.#opts = opts;
  }

  folder(id: string): string {
    return join(this.#opts.dir, id);
  }

  isRecording(id: string): boolean {
    return this.#live.has(id);
  }

  async begin(instance: Instance): Promise<void> {
    const writer = await RecordingWriter.open(this.folder(instance.id), this.#opts.maxBytes, instance.createdAt.getTime());
    try {
      const recorder = await Recorder.start(instance.browser, writer, {
        ...SCREEN,
        fps: this.#opts.fps,
        explainUnreachable: this.#opts.explainUnreachable,
      });
      const { folders, policyFolders } = instance.browser;
      const downloads = new DownloadWatch({ folders, policyFolders }, writer);
      downloads.start();
      this.#live.set(instance.id, { recorder, downloads, writer });
    } catch (err) {
      await writer.close();
      await rm(writer.dir, { recursive: true, force: true });
      throw err;
    }
  }

  async finish(id: string): Promise<void> {
    const live = this.#live.get(id);
    if (!live) return;
    this.#live.delete(id);
    await live.recorder.stop();
    await live.downloads.stop();
    await live.writer.close();
    await this.#opts.history.recordingSize(id, live.writer.bytes);
  }

  /** Remove what is past its retention: the files, then the mark on the browser's row. */
  async prune(now: number): Promise<number> {
    const expired = await this.#opts.history.expiredRecordings(now);
    for (const id of expired) {
      await rm(this.folder(id), { recursive: true, force: true });
      await this.#opts.history.forgetRecording(id);
    }
    if (expired.length) this.#opts.log.info({ removed: expired.length }, 'expired recordings removed');
    return expired.length;
  }
}
