import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * For tests of what a reader keeps: the bytes of V8's heap in use after a full collection (node
 * --test runs without --expose-gc, so the flag is set here and `gc` taken from a new context).
 * Values outside the heap (typed arrays' buffers) are not in it.
 */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/** The heap as heapAfterGc() has it, and the buffers of typed arrays besides. V8 frees the buffers
 * a collection found dead on another thread, after it (later with the machine busy); the next
 * collection waits for that first, so there are two. */
export function heldAfterGc(): number {
  heapAfterGc();
  return heapAfterGc() + process.memoryUsage().arrayBuffers;
}
