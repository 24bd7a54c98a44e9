import { createReadStream, type ReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EVENTS_FILE, SCREEN_FILE, type RecordedEvent } from './writer.ts';

/** A recording's events after `after` (their `seq`), in order. A line still being written is left for the next read. */
export async function readEvents(dir: string, after = 0): Promise<RecordedEvent[]> {
  const text = await readFile(join(dir, EVENTS_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const events: RecordedEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let event: RecordedEvent;
    try {
      event = JSON.parse(line) as RecordedEvent;
    } catch {
      break; // the last line, half written
    }
    if (event.seq > after) events.push(event);
  }
  return events;
}

/** How many bytes of screen the recording holds so far. */
export async function screenSize(dir: string): Promise<number> {
  return (await stat(join(dir, SCREEN_FILE)).catch(() => ({ size: 0 }))).size;
}

/** Bytes `start` to `end` (inclusive) of the screen file. */
export function readScreen(dir: string, start: number, end: number): ReadStream {
  return createReadStream(join(dir, SCREEN_FILE), { start, end });
}
