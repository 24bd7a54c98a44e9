import { createReadStream, type ReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

/**
 * Each complete event of a recording, in order, read a line at a time (never the whole file in
 * memory). Reading stops once `budget.bytes` is spent (the budget is shared, and spent, across
 * calls): false then, true when the file was read to its end.
 */
export async function scanEvents(dir: string, visit: (event: RecordedEvent) => void, budget: { bytes: number }): Promise<boolean> {
  const stream = createReadStream(join(dir, EVENTS_FILE), { encoding: 'utf8' });
  // No file yet (a recording that has written nothing) reads as empty.
  const missing = new Promise<boolean>((resolve) => stream.once('error', () => resolve(true)));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const read = (async () => {
    for await (const line of lines) {
      if (budget.bytes <= 0) return false;
      budget.bytes -= Buffer.byteLength(line) + 1;
      if (!line) continue;
      try {
        visit(JSON.parse(line) as RecordedEvent);
      } catch {
        return true; // the last line, half written
      }
    }
    return true;
  })().catch(() => true);
  try {
    return await Promise.race([read, missing]);
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** How many bytes of screen the recording holds so far. */
export async function screenSize(dir: string): Promise<number> {
  return (await stat(join(dir, SCREEN_FILE)).catch(() => ({ size: 0 }))).size;
}

/** Bytes `start` to `end` (inclusive) of the screen file. */
export function readScreen(dir: string, start: number, end: number): ReadStream {
  return createReadStream(join(dir, SCREEN_FILE), { start, end });
}
