/**
 * An address cut to what a list can show (a `data:` address can be megabytes long): at most `max`
 * characters, ending in an ellipsis when cut. The whole address stays the caller's, for a title.
 */
export function clipAddress(url: string, max = 200): string {
  return url.length > max ? `${url.slice(0, max - 1)}…` : url;
}
