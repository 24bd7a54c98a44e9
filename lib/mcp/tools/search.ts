import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Periscope, SearchResponse, SearchTry } from '@periscope/client';
import { z } from 'zod';
import { cutText, markdownNote, type Limits } from '../limits.ts';
import { answer, textResult } from './result.ts';

export type SearchTools = { periscope: Pick<Periscope, 'search'>; limits: Limits };

/** `search`: the service's search API (POST /v0/search), its results as Markdown. */
export function registerSearchTool(server: McpServer, { periscope, limits }: SearchTools): void {
  server.registerTool(
    'search',
    {
      title: 'Web search',
      description:
        "Search the Periscope service's web index. Answers ranked results: title, address and a snippet of each. Open one with browser_navigate. When nothing is found, it lists searches that find something.",
      inputSchema: {
        query: z.string().trim().min(1).max(348).describe('What to search for, 1 to 348 characters'),
        language: z
          .string()
          .regex(/^[A-Za-z]{2}(?:[-_][A-Za-z0-9]{2,8})*$/, 'must be a language code such as en, fr or pt-BR')
          .optional()
          .describe('Prefer pages in this language (two letters, e.g. en, fr); default en'),
        count: z.number().int().min(1).max(50).optional().describe('How many results, 1 to 50 (default 10)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        const response = await periscope.search({
          query: args.query,
          language: args.language?.slice(0, 2).toLowerCase(),
          count: args.count,
        });
        return textResult([cutText(formatResults(args.query, response), limits.maxTextChars, markdownNote).text]);
      }),
  );
}

/** Results as a numbered Markdown list, with the corrected query and the next page when there are;
 * when none, the searches the service checked find something (decision 0114), to run with this tool. */
export function formatResults(query: string, response: SearchResponse): string {
  const lines = [`### Search results for ${JSON.stringify(query)}`];
  if (response.corrected) lines.push(`Searched for ${JSON.stringify(response.corrected.query)} instead (misspelt words corrected).`);
  if (response.results.length === 0) lines.push('No results.');
  if (response.results.length === 0 && response.tries?.length) {
    lines.push('These searches find something (run one with this tool):');
    for (const t of response.tries) lines.push(`- ${JSON.stringify(t.query)} (language ${t.language}): ${WHY[t.why] ?? t.why}`);
  }
  response.results.forEach((r, i) => {
    const where = r.section?.length ? ` — ${r.section.join(' › ')}` : '';
    lines.push(`${i + 1}. [${escapeLinkText(r.title || r.url)}](${r.url})${where}`);
    if (r.snippet) lines.push(`   ${r.snippet.replace(/\s+/g, ' ').trim()}`);
  });
  if (response.next) lines.push('More results exist: search again with a larger count (at most 50).');
  return lines.join('\n');
}

/** What each kind of try changed of the search. */
const WHY: Record<SearchTry['why'], string> = {
  corrected: 'its misspelt words corrected',
  'fewer-words': 'without its last word',
  'one-word': 'its longest word alone',
  english: 'in English',
  'every-site': 'on every site',
};

const escapeLinkText = (text: string) => text.replace(/[[\]\\]/g, (c) => `\\${c}`);
