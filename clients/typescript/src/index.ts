export { Periscope, VERSION, type Health, type PeriscopeOptions } from './client.ts';
export {
  RemoteBrowser,
  type BrowserVersion,
  type DownloadedFile,
  type PlaywrightBrowserType,
  type PuppeteerLike,
  type StartOptions,
  type UploadedFile,
} from './browser.ts';
export {
  Browsers,
  Profiles,
  Recordings,
  type BrowserSummary,
  type ProfileSummary,
  type EventFilters,
  type EventMatch,
  type Recording,
  type RecordingEvent,
} from './browsers.ts';
export type { BrowserEnd, EndReason } from './end.ts';
export {
  AuthenticationError,
  BadGatewayError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  PeriscopeError,
  RateLimitError,
  TimeoutError,
  UnavailableError,
  type FieldIssue,
} from './errors.ts';
export type { CallOptions } from './http.ts';
export type { FetchRequest, FetchResponse, PageActionRequest, PdfRequest, ScreenshotRequest } from './actions.ts';
export type { RateLimitState, SearchRequest, SearchResponse, SearchResult, SearchTry } from './search.ts';
