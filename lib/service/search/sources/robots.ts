import robotsParserModule from 'robots-parser';

// A CommonJS package whose types describe an ES default export: at run time the import is the function.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/**
 * robots.txt, read by `robots-parser` (RFC 9309: the group for our product token or `*`, Allow and
 * Disallow with `*` and `$`, the longest match winning and Allow winning a tie, percent-encoding
 * normalised), with Crawl-delay as a politeness hint. Decision 0019 says why a library.
 */
export type Robots = { allowed(url: string): boolean; crawlDelayMs: number | null };

/** The rules of `text`, fetched from `robotsUrl`, for `userAgent` (`PeriscopeBot/0.1`). */
export function parseRobots(robotsUrl: string, text: string, userAgent: string): Robots {
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(userAgent);
  return {
    // undefined means another origin than the file's: never asked by the crawler, and not ours to refuse.
    allowed: (url) => robots.isAllowed(url, userAgent) !== false,
    crawlDelayMs: delay === undefined || !Number.isFinite(delay) ? null : delay * 1000,
  };
}

export const ALLOW_ALL: Robots = { allowed: () => true, crawlDelayMs: null };
