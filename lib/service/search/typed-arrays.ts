/** Numbers kept in typed arrays that grow as they fill (the postings buffer, PageRank's links, a
 * query's scratch arrays). */
export type GrowableArray = Uint32Array | Int32Array | Uint16Array | Uint8Array | Float32Array | Float64Array;

/** A new array of the same kind, `size` long, holding `array` at its start (the rest zero). */
export function grown<T extends GrowableArray>(array: T, size: number): T {
  const out = new (array.constructor as new (n: number) => T)(size);
  out.set(array);
  return out;
}
