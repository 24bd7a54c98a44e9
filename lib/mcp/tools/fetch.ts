import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FetchResponse, Periscope } from '@periscope/client';
import { z } from 'zod';
import { cutText, markdownNote, type Limits } from '../limits.ts';
import { answer, textResult } from './result.ts';

export type FetchTools = { periscope: Pick<Periscope, 'fetch'>; limits: Limits };

/** The most of a page's links the tool lists (the page's content already holds the ones in its text). */
export const MAX_LISTED_LINKS = 50;

/** `fetch`: the page action POST /v0/fetch, a page's main content as Markdown, in one call. */
export function registerFetchTool(server: McpServer, { periscope, limits }: FetchTools): void {
  server.registerTool(
    'fetch',
    {
      title: 'Fetch a page',
      description:
        'Read one web page as a real browser renders it (scripts run): its main content as Markdown, its title and links. One call, no browser session; use the browser_* tools to click or type.',
      inputSchema: {
        url: z.string().url('must be an absolute http or https address').describe('The page to read: an absolute http(s) address'),
        format: z.enum(['markdown', 'html', 'text']).optional().describe('markdown (default), html or text'),
        waitUntil: z.enum(['load', 'domcontentloaded', 'networkidle']).optional().describe('What to wait for; default load'),
        timeoutMs: z.number().int().min(1).max(60_000).optional().describe('At most this long, 1 to 60000 ms (default 30000)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        const page = await periscope.fetch({ url: args.url, format: args.format, waitUntil: args.waitUntil, timeoutMs: args.timeoutMs });
        return textResult([cutText(formatPage(page), limits.maxTextChars, markdownNote).text]);
      }),
  );
}

/** The page as the model reads it: where it is, its status when not 200, its content, then its first links. */
export function formatPage(page: FetchResponse): string {
  const head = [`### ${page.title || page.finalUrl}`, `- URL: ${page.finalUrl}`];
  if (page.finalUrl !== page.url) head.push(`- Redirected from: ${page.url}`);
  if (page.status !== 200) head.push(`- HTTP status: ${page.status}`);
  const links = page.links.slice(0, MAX_LISTED_LINKS).map((l) => `- ${l}`);
  if (page.links.length > MAX_LISTED_LINKS) links.push(`- … and ${page.links.length - MAX_LISTED_LINKS} more`);
  return [head.join('\n'), page.content || '(the page has no text)', links.length ? `### Links\n${links.join('\n')}` : '']
    .filter(Boolean)
    .join('\n\n');
}
