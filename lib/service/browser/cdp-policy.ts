import { posix } from 'node:path';
import type { ClientMessage } from '../protocol/devtools.ts';

/**
 * What a client may not ask of a remote browser over CDP. This is the second line of defence
 * (docs/decisions/0050-instance-isolation.md): each instance runs in a sandbox that holds nothing
 * of the host and reaches nothing but the egress proxy, whatever Chromium is told. The policy keeps
 * clients inside what the product offers, and judges parsed messages only: method names after
 * JSON decoding, addresses after the same normalisation Chromium applies (WHATWG URL parsing).
 */
export type Verdict = { action: 'pass' } | { action: 'refuse'; reason: string } | { action: 'rewrite'; message: ClientMessage };

/** Where the instance's own files live, as Chromium sees them. */
export type InstanceFolders = { downloads: string; uploads: string };

/** Schemes a client may open. `about:` only as about:blank and about:srcdoc (others alias chrome://). */
const SCHEMES = new Set(['http:', 'https:', 'about:', 'data:', 'blob:']);
const ABOUT = new Set(['blank', 'srcdoc']);

/** Whole domains that reach outside the instance or load code from the host. */
const REFUSED_DOMAINS: Record<string, string> = {
  Extensions: 'extensions cannot be loaded or managed on this service',
  Tethering: 'port binding is not available on this service',
  Cast: 'casting is not available on this service',
};

const REFUSED_METHODS: Record<string, string> = {
  'Target.exposeDevToolsProtocol': 'exposing the DevTools protocol to page script is not allowed',
  'Target.setRemoteLocations': 'remote target discovery is not allowed',
};

/** Methods whose `url` parameter is opened or fetched by the browser. */
const URL_METHODS = new Set([
  'Page.navigate',
  'Target.createTarget',
  'Network.loadNetworkResource',
  'Fetch.continueRequest',
  'Network.continueInterceptedRequest',
]);

const MAX_DEPTH = 4;

export function judge(message: ClientMessage, folders: InstanceFolders, depth = 0): Verdict {
  const { method } = message;
  const params = message.params ?? {};
  const domain = method.slice(0, method.indexOf('.'));
  const refusedDomain = REFUSED_DOMAINS[domain];
  if (refusedDomain) return refuse(refusedDomain);
  const refusedMethod = REFUSED_METHODS[method];
  if (refusedMethod) return refuse(refusedMethod);

  if (URL_METHODS.has(method) && params.url !== undefined) {
    const problem = urlProblem(params.url, method === 'Target.createTarget');
    if (problem) return refuse(`${method}: ${problem}`);
  }
  switch (method) {
    case 'Target.sendMessageToTarget':
      return judgeWrapped(message, folders, depth);
    case 'Target.createBrowserContext': {
      const named = ['proxyServer', 'proxyBypassList', 'originsWithUniversalNetworkAccess'].filter((k) => params[k] !== undefined);
      return named.length
        ? refuse(`browser contexts cannot set ${named.join(', ')}: every connection goes through the service's egress proxy`)
        : pass;
    }
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior':
      return keepDownloadsInside(message, folders);
    case 'DOM.setFileInputFiles':
      return filesProblem(params.files, folders) ?? pass;
    case 'Input.dispatchDragEvent':
      return filesProblem((params.data as { files?: unknown } | undefined)?.files ?? [], folders) ?? pass;
    case 'PWA.launchFilesInApp':
      return filesProblem(params.files, folders) ?? pass;
    case 'PWA.install': {
      const problem = params.installUrlOrBundleUrl === undefined ? null : urlProblem(params.installUrlOrBundleUrl, false);
      return problem ? refuse(`PWA.install: ${problem}`) : pass;
    }
    default:
      return pass;
  }
}

const pass: Verdict = { action: 'pass' };
const refuse = (reason: string): Verdict => ({ action: 'refuse', reason });

/**
 * Why a URL may not be opened, or null. Parsed the way Chromium parses it (leading and trailing
 * control characters and spaces dropped, tabs and newlines removed anywhere, scheme lower-cased),
 * so `"\u0001file:///"` and `"fi\tle:"` are judged as the `file:` addresses Chromium would open.
 */
export function urlProblem(value: unknown, emptyMeansBlank: boolean): string | null {
  if (typeof value !== 'string') return 'url must be a string';
  if (value === '' && emptyMeansBlank) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid absolute address';
  }
  if (!SCHEMES.has(url.protocol))
    return `${url.protocol} addresses are not allowed on this service (http, https, data, blob and about:blank only)`;
  if (url.protocol === 'about:' && !ABOUT.has(url.pathname))
    return `about:${url.pathname} is not allowed (only about:blank and about:srcdoc)`;
  return null;
}

/** Files a command would read: only ones in the instance's uploads folder (see PUT /v0/browser/uploads/NAME). */
function filesProblem(files: unknown, folders: InstanceFolders): Verdict | null {
  if (!Array.isArray(files)) return refuse('files must be a list of paths');
  for (const file of files) {
    if (typeof file !== 'string' || !isInside(file, folders.uploads)) {
      return refuse(
        `only files uploaded to this browser can be used (paths under ${folders.uploads}/; upload with PUT /v0/browser/uploads/NAME)`,
      );
    }
  }
  return null;
}

export function isInside(path: string, folder: string): boolean {
  if (!path.startsWith('/') || path.includes('\0')) return false;
  const normal = posix.normalize(path);
  return normal === path && normal.startsWith(`${folder}/`) && normal.length > folder.length + 1;
}

/** Every download goes to the instance's own downloads folder, whatever the client names; `default` too. */
function keepDownloadsInside(message: ClientMessage, folders: InstanceFolders): Verdict {
  const params = message.params ?? {};
  const behavior = params.behavior;
  if (behavior === 'deny') return pass;
  if (behavior !== 'allow' && behavior !== 'allowAndName' && behavior !== 'default')
    return refuse('behavior must be deny, allow, allowAndName or default');
  const kept = { ...params, behavior: behavior === 'default' ? 'allow' : behavior, downloadPath: folders.downloads };
  return { action: 'rewrite', message: { ...message, params: kept } };
}

/** Non-flattened sessions: the inner command is judged like any other. */
function judgeWrapped(message: ClientMessage, folders: InstanceFolders, depth: number): Verdict {
  const params = message.params ?? {};
  if (typeof params.message !== 'string') return refuse('Target.sendMessageToTarget needs a message string');
  if (depth >= MAX_DEPTH) return refuse('messages nested this deep are not accepted');
  let inner: unknown;
  try {
    inner = JSON.parse(params.message);
  } catch {
    return refuse('the wrapped message is not JSON');
  }
  const i = inner as Partial<ClientMessage> | null;
  if (!i || typeof i !== 'object' || typeof i.id !== 'number' || typeof i.method !== 'string')
    return refuse('the wrapped message needs an id and a method');
  if (i.params !== undefined && (typeof i.params !== 'object' || i.params === null))
    return refuse("the wrapped message's params must be an object");
  const innerMessage: ClientMessage = { id: i.id, method: i.method, ...(i.params ? { params: i.params } : {}) };
  const verdict = judge(innerMessage, folders, depth + 1);
  if (verdict.action === 'refuse') return verdict;
  // Send on exactly what was judged (re-serialised), never the client's own text.
  const judged = verdict.action === 'rewrite' ? verdict.message : innerMessage;
  return { action: 'rewrite', message: { ...message, params: { ...params, message: JSON.stringify(judged) } } };
}
