import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool's answer of Markdown sections. */
export function textResult(sections: Array<string | null | undefined | false>): CallToolResult {
  return { content: [{ type: 'text', text: sections.filter(Boolean).join('\n\n') }] };
}

/** A tool error: the model reads the message and can try again, the session goes on. */
export function errorResult(err: unknown): CallToolResult {
  return { content: [{ type: 'text', text: `### Error\n${messageOf(err)}` }], isError: true };
}

/** Run a tool's work; whatever it throws is answered as a tool error, never as a crash of the session. */
export async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    return errorResult(err);
  }
}

/**
 * An error's message without Playwright's call log and stack: the first lines say what went wrong
 * (`locator.click: Timeout 5000ms exceeded.`), the rest is for debugging Playwright itself.
 */
export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const head = text.split(/\n\s*(?:Call log:|=+ logs =+)/)[0] ?? text;
  // eslint-disable-next-line no-control-regex -- terminal colours are what is removed
  const clean = head.replace(/\u001b\[[0-9;]*m/g, '').trim();
  return clean.length > 2000 ? `${clean.slice(0, 2000)}…` : clean || 'the tool failed without saying why';
}
