import type { Locator, Page } from 'playwright-core';
import { cutText, snapshotNote } from './limits.ts';

/** A ref as `browser_snapshot` prints them: `e12`, or `f1e3` inside a frame. */
const REF = /^(?:f\d+)?e\d+$/;

/** Thrown for what the caller can fix (a stale ref, a tab that is not there): the message is the tool's answer. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

/**
 * The page's accessibility tree as Playwright's AI snapshot writes it (YAML, `[ref=eN]` on every
 * element one can act on), cut to `maxChars`. Taking it makes these refs the ones `locateRef` resolves.
 */
export async function takeSnapshot(page: Page, maxChars: number): Promise<string> {
  const yaml = await page.ariaSnapshot({ mode: 'ai', timeout: 15_000 });
  return cutText(yaml, maxChars, snapshotNote).text;
}

/** The element a ref of the latest snapshot names, or a ToolInputError saying to take a new snapshot. */
export async function locateRef(page: Page, ref: string, element: string | undefined): Promise<Locator> {
  const what = element ? `${JSON.stringify(element)} (ref ${ref})` : `ref ${ref}`;
  if (!REF.test(ref))
    throw new ToolInputError(`${JSON.stringify(ref)} is not an element reference: use a ref such as e12 from the latest browser_snapshot`);
  const locator = page.getByRef(ref);
  const count = await locator.count().catch(() => 0);
  if (count === 0)
    throw new ToolInputError(
      `${what} is not in the current page: the page changed since the snapshot, or the ref is wrong. Take browser_snapshot again and use a ref from it`,
    );
  return locator;
}

export type TabSummary = { index: number; current: boolean; title: string; url: string };

/** `- 0: (current) [Title] (https://…)`, one line per tab. */
export function formatTabs(tabs: TabSummary[]): string {
  if (tabs.length === 0) return 'No open tabs. Use browser_navigate to open a page.';
  return tabs.map((t) => `- ${t.index}:${t.current ? ' (current)' : ''} [${t.title}] (${t.url})`).join('\n');
}

/** A code block whose fence cannot be closed by its content. */
export function fenced(lang: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Playwright code that does what a tool did, as Playwright MCP reports it. */
export function codeSection(lines: string[]): string {
  return `### Ran Playwright code\n${fenced('js', lines.join('\n'))}`;
}

/** `### Page state`: the page's address, title and (unless left out) snapshot. */
export async function pageStateSection(page: Page, options: { maxChars: number; snapshot: boolean }): Promise<string> {
  const lines = ['### Page state', `- Page URL: ${page.url()}`, `- Page Title: ${await titleOf(page)}`];
  if (options.snapshot) lines.push('- Page Snapshot:', fenced('yaml', await takeSnapshot(page, options.maxChars)));
  return lines.join('\n');
}

/** A page's title, or '' while it navigates (its context is then gone for a moment). */
export async function titleOf(page: Page): Promise<string> {
  try {
    return await page.title();
  } catch {
    return '';
  }
}

/** A string as a JavaScript literal, for the reported code. */
export const js = (value: unknown): string => JSON.stringify(value).replace(/\u2028|\u2029/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
