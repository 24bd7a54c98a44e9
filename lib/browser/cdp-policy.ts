/**
 * What a client may not ask of a remote browser over CDP: anything that reaches the service host
 * itself rather than the web. The egress proxy keeps the browser off the host's network; this keeps
 * it off the host's files and out of other machines' DevTools.
 */
export type Verdict =
  | { action: 'pass' }
  | { action: 'refuse'; reason: string }
  | { action: 'rewrite'; message: Record<string, unknown> };

type Message = { id?: unknown; method?: unknown; params?: Record<string, unknown>; sessionId?: unknown };

const HOST_SCHEMES = /^\s*(file|filesystem|chrome|chrome-untrusted|chrome-extension|devtools|view-source):/i;

/** Methods worth a look; any other message passes without being parsed. */
export const WATCHED = /"(Page\.navigate|Target\.createTarget|Network\.loadNetworkResource|DOM\.setFileInputFiles|Browser\.setDownloadBehavior|Page\.setDownloadBehavior|Extensions\.loadUnpacked|Target\.setRemoteLocations|Input\.dispatchDragEvent)"/;

export function judge(text: string, downloadDir: string): Verdict {
  if (!WATCHED.test(text)) return { action: 'pass' };
  let msg: Message;
  try {
    msg = JSON.parse(text) as Message;
  } catch {
    return { action: 'pass' }; // Chromium answers malformed JSON itself
  }
  const params = msg.params ?? {};
  const url = typeof params.url === 'string' ? params.url : '';
  switch (msg.method) {
    case 'Page.navigate':
    case 'Target.createTarget':
    case 'Network.loadNetworkResource':
      return HOST_SCHEMES.test(url) ? { action: 'refuse', reason: `${msg.method} to ${url.split(':')[0]}: addresses is not allowed on this service` } : { action: 'pass' };
    case 'DOM.setFileInputFiles':
      return { action: 'refuse', reason: 'DOM.setFileInputFiles would read files of the service host; it is not allowed' };
    case 'Extensions.loadUnpacked':
      return { action: 'refuse', reason: 'loading extensions from the service host is not allowed' };
    case 'Target.setRemoteLocations':
      return { action: 'refuse', reason: 'remote target discovery is not allowed' };
    case 'Input.dispatchDragEvent': {
      const files = (params.data as { files?: unknown[] } | undefined)?.files;
      return files?.length ? { action: 'refuse', reason: 'dragging files of the service host is not allowed' } : { action: 'pass' };
    }
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior':
      // Downloads stay inside the instance's own profile, which is removed with it.
      if (typeof params.downloadPath !== 'string') return { action: 'pass' };
      return { action: 'rewrite', message: { ...msg, params: { ...params, downloadPath: downloadDir } } };
    default:
      return { action: 'pass' };
  }
}

/** The CDP error reply to a refused command, addressed like the command was. */
export function refusal(text: string, reason: string): string | null {
  try {
    const msg = JSON.parse(text) as Message;
    if (typeof msg.id !== 'number') return null;
    return JSON.stringify({ id: msg.id, ...(typeof msg.sessionId === 'string' ? { sessionId: msg.sessionId } : {}), error: { code: -32000, message: `Periscope: ${reason}` } });
  } catch {
    return null;
  }
}
