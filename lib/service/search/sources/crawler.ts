import type { FetchedPage } from '../backend.ts';
import { normalizeUrl, sameSite, urlKey } from '../url.ts';
import { decodeHtml, isHtml } from './http-payload.ts';
import { crawlLinks } from './links.ts';
import { ALLOW_ALL, parseRobots, type Robots } from './robots.ts';

export const DEFAULT_USER_AGENT = 'PeriscopeBot/0.1 (self-hosted search indexer; +https://github.com/periscope/periscope)';

export type CrawlOptions = {
  maxPages: number;
  maxDepth: number;
  concurrency: number;
  timeoutMs: number;
  userAgent: string;
  /** Follow links to other sites too (default: stay on the start addresses' sites). */
  allSites: boolean;
  maxBytes: number;
  /** Least time between two requests to one host, unless robots.txt asks for more (capped at 30 s). */
  delayMs: number;
};

export const CRAWL_DEFAULTS: CrawlOptions = {
  maxPages: 1000,
  maxDepth: 5,
  concurrency: 4,
  timeoutMs: 15_000,
  userAgent: DEFAULT_USER_AGENT,
  allSites: false,
  maxBytes: 5 * 1024 * 1024,
  delayMs: 200,
};

export type CrawlEvents = {
  page(page: FetchedPage, depth: number): void;
  skip(url: string, reason: string): void;
  progress?(done: number, queued: number): void;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A polite breadth-first crawl from `starts`: robots.txt is read (and obeyed) once per origin, one
 * request at a time per host with a delay between them, at most `concurrency` requests in all,
 * each with a timeout and a size limit, a clear User-Agent, HTML only, and links followed on the
 * start sites only (unless `allSites`), down to `maxDepth` links from a start, up to `maxPages`.
 */
export async function crawl(
  starts: readonly string[],
  options: Partial<CrawlOptions>,
  events: CrawlEvents,
): Promise<{ fetched: number; skipped: number }> {
  const o = { ...CRAWL_DEFAULTS, ...options };
  const queue: { url: string; depth: number }[] = [];
  const seen = new Set<string>();
  const robots = new Map<string, Promise<Robots>>();
  const hostFree = new Map<string, number>();
  let fetched = 0;
  let skipped = 0;
  let inFlight = 0;
  let claimed = 0;

  const enqueue = (url: string, depth: number) => {
    const key = urlKey(url);
    if (seen.has(key) || seen.size >= o.maxPages * 20) return;
    seen.add(key);
    queue.push({ url, depth });
  };
  for (const s of starts) {
    const url = normalizeUrl(s);
    if (url) enqueue(url, 0);
    else events.skip(s, 'not an http(s) address');
  }
  const onSite = (url: string) => o.allSites || starts.some((s) => sameSite(s, url));

  const robotsFor = (origin: string) => {
    let r = robots.get(origin);
    if (!r) {
      r = fetchText(`${origin}/robots.txt`, o).then(
        (res) => (res && res.status === 200 ? parseRobots(`${origin}/robots.txt`, res.text, o.userAgent) : ALLOW_ALL),
        () => ALLOW_ALL,
      );
      robots.set(origin, r);
    }
    return r;
  };

  const politeTurn = async (host: string, rules: Robots) => {
    const gap = Math.min(30_000, Math.max(o.delayMs, rules.crawlDelayMs ?? 0));
    for (;;) {
      const now = Date.now();
      const free = hostFree.get(host) ?? 0;
      if (now >= free) {
        hostFree.set(host, now + gap);
        return;
      }
      await sleep(free - now);
    }
  };

  const visit = async (item: { url: string; depth: number }) => {
    const u = new URL(item.url);
    const rules = await robotsFor(u.origin);
    if (!rules.allowed(u.href)) {
      skipped++;
      return events.skip(item.url, 'disallowed by robots.txt');
    }
    await politeTurn(u.host, rules);
    let res;
    try {
      res = await fetchText(item.url, o, true);
    } catch (err) {
      skipped++;
      return events.skip(item.url, (err as Error).message);
    }
    if (!res) {
      skipped++;
      return events.skip(item.url, 'not HTML');
    }
    if (res.status !== 200) {
      skipped++;
      return events.skip(item.url, `HTTP status ${res.status}`);
    }
    if (!onSite(res.url)) {
      skipped++;
      return events.skip(item.url, `redirected off site to ${res.url}`);
    }
    fetched++;
    events.page({ url: res.url, html: res.text }, item.depth);
    if (item.depth >= o.maxDepth) return;
    const { links, nofollow } = crawlLinks(res.text, res.url);
    if (nofollow) return;
    for (const l of links) if (onSite(l)) enqueue(l, item.depth + 1);
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inFlight < o.concurrency && queue.length && claimed < o.maxPages) {
        const item = queue.shift() as { url: string; depth: number };
        inFlight++;
        claimed++;
        void visit(item)
          .catch((err: unknown) => {
            skipped++;
            events.skip(item.url, (err as Error).message);
          })
          .finally(() => {
            inFlight--;
            events.progress?.(fetched + skipped, Math.min(o.maxPages, claimed + queue.length));
            pump();
          });
      }
      if (inFlight === 0 && (!queue.length || claimed >= o.maxPages)) resolve();
    };
    pump();
  });
  return { fetched, skipped };
}

type TextResponse = { status: number; url: string; text: string };

/** GET with a timeout, a size limit and our User-Agent; null when the answer is not HTML. */
async function fetchText(url: string, o: CrawlOptions, htmlOnly = false): Promise<TextResponse | null> {
  const res = await fetch(url, {
    headers: { 'user-agent': o.userAgent, accept: htmlOnly ? 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' : 'text/plain,*/*' },
    redirect: 'follow',
    signal: AbortSignal.timeout(o.timeoutMs),
  }).catch((err: Error) => {
    throw new Error(
      err.name === 'TimeoutError'
        ? `timed out after ${o.timeoutMs} ms`
        : `fetch failed: ${(err.cause as Error | undefined)?.message ?? err.message}`,
    );
  });
  const type = res.headers.get('content-type') ?? undefined;
  if (htmlOnly && res.status === 200 && !isHtml(type)) {
    await res.body?.cancel();
    return null;
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > o.maxBytes) {
    await res.body?.cancel();
    throw new Error(`larger than ${o.maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    if (!reader) break;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > o.maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`larger than ${o.maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return { status: res.status, url: normalizeUrl(res.url) ?? url, text: decodeHtml(Buffer.concat(chunks), type) };
}
