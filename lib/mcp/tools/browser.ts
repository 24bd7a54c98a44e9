import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import type { BrowserSession } from '../browser-session.ts';
import type { Limits } from '../limits.ts';
import { codeSection, formatTabs, js, locateRef, pageStateSection, ToolInputError } from '../snapshot.ts';
import { answer as answerAny, textResult } from './result.ts';

/**
 * The browser tools, named and shaped as Microsoft's Playwright MCP server names and shapes them
 * (docs/decisions/0101-mcp-server.md), so that prompts and agents written for it work unchanged.
 * Each acts on the MCP session's Periscope browser, started by the first of them.
 */
export type BrowserTools = { session: BrowserSession; limits: Limits };

const element = z.string().describe('Human-readable element description used to obtain permission to interact with the element');
const ref = z.string().min(1).describe('Exact target element reference from the page snapshot');

export function registerBrowserTools(server: McpServer, tools: BrowserTools): void {
  const { session, limits } = tools;
  /** A browser tool's work, counted as use of the browser (it does not idle out meanwhile). */
  const answer = (work: () => Promise<CallToolResult>) => answerAny(() => session.run(work));

  /** What every page-changing tool answers: the notes, the code it ran, the tabs when several, the page's state. */
  const report = async (page: Page, notes: string[], code: string[], snapshot = true): Promise<CallToolResult> => {
    const tabs = await session.tabs();
    return textResult([
      notes.length ? `### Browser\n${notes.map((n) => `- ${n}`).join('\n')}` : null,
      code.length ? codeSection(code) : null,
      tabs.length > 1 ? `### Open tabs\n${formatTabs(tabs)}` : null,
      await pageStateSection(page, { maxChars: limits.maxTextChars, snapshot }),
    ]);
  };

  server.registerTool(
    'browser_navigate',
    {
      title: 'Navigate to a URL',
      description: 'Navigate to a URL',
      inputSchema: { url: z.string().min(1).describe('The URL to navigate to') },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ url }) =>
      answer(async () => {
        const target = normaliseUrl(url);
        const { page, notes } = await session.page();
        await page.goto(target, { waitUntil: 'domcontentloaded' });
        await settle(page);
        return report(page, notes, [`await page.goto(${js(target)});`]);
      }),
  );

  server.registerTool(
    'browser_navigate_back',
    {
      title: 'Go back',
      description: 'Go back to the previous page',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
      answer(async () => {
        const { page, notes } = await session.page();
        await page.goBack({ waitUntil: 'domcontentloaded' });
        await settle(page);
        return report(page, notes, ['await page.goBack();']);
      }),
  );

  server.registerTool(
    'browser_snapshot',
    {
      title: 'Page snapshot',
      description: 'Capture accessibility snapshot of the current page, this is better than screenshot',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
      answer(async () => {
        const { page, notes } = await session.page();
        return report(page, notes, []);
      }),
  );

  server.registerTool(
    'browser_click',
    {
      title: 'Click',
      description: 'Perform click on a web page',
      inputSchema: {
        element,
        ref,
        doubleClick: z.boolean().optional().describe('Whether to perform a double click instead of a single click'),
        button: z.enum(['left', 'right', 'middle']).optional().describe('Button to click, defaults to left'),
        modifiers: z
          .array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']))
          .optional()
          .describe('Modifier keys to press'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        const { page, notes } = await session.page();
        const target = await locateRef(page, args.ref, args.element);
        const name = await codeOf(target, args.ref);
        const options = { button: args.button, modifiers: args.modifiers };
        const shown = optionsCode({ button: args.button === 'left' ? undefined : args.button, modifiers: args.modifiers });
        if (args.doubleClick) await target.dblclick(options);
        else await target.click(options);
        await settle(page);
        return report(page, notes, [`await page.${name}.${args.doubleClick ? 'dblclick' : 'click'}(${shown});`]);
      }),
  );

  server.registerTool(
    'browser_type',
    {
      title: 'Type text',
      description: 'Type text into editable element',
      inputSchema: {
        element,
        ref,
        text: z.string().describe('Text to type into the element'),
        submit: z.boolean().optional().describe('Whether to submit entered text (press Enter after)'),
        slowly: z
          .boolean()
          .optional()
          .describe(
            'Whether to type one character at a time. Useful for triggering key handlers in the page. By default entire text is filled in at once.',
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        const { page, notes } = await session.page();
        const target = await locateRef(page, args.ref, args.element);
        const name = await codeOf(target, args.ref);
        const code: string[] = [];
        if (args.slowly) {
          await target.pressSequentially(args.text);
          code.push(`await page.${name}.pressSequentially(${js(args.text)});`);
        } else {
          await target.fill(args.text);
          code.push(`await page.${name}.fill(${js(args.text)});`);
        }
        if (args.submit) {
          await target.press('Enter');
          code.push(`await page.${name}.press('Enter');`);
        }
        await settle(page);
        return report(page, notes, code);
      }),
  );

  server.registerTool(
    'browser_press_key',
    {
      title: 'Press a key',
      description: 'Press a key on the keyboard',
      inputSchema: {
        key: z.string().min(1).describe('Name of the key to press or a character to generate, such as `ArrowLeft` or `a`'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ key }) =>
      answer(async () => {
        const { page, notes } = await session.page();
        await page.keyboard.press(key);
        await settle(page);
        return report(page, notes, [`await page.keyboard.press(${js(key)});`]);
      }),
  );

  server.registerTool(
    'browser_take_screenshot',
    {
      title: 'Take a screenshot',
      description:
        "Take a screenshot of the current page. You can't perform actions based on the screenshot, use browser_snapshot for actions.",
      inputSchema: {
        type: z.enum(['png', 'jpeg']).optional().describe('Image format for the screenshot. Default is png.'),
        filename: z
          .string()
          .optional()
          .describe('Accepted for compatibility with Playwright MCP; Periscope saves no file, the image is in the result.'),
        element: z
          .string()
          .optional()
          .describe(
            'Human-readable element description used to obtain permission to screenshot the element. If not provided, the screenshot will be taken of viewport. If element is provided, ref must be provided too.',
          ),
        ref: z
          .string()
          .optional()
          .describe(
            'Exact target element reference from the page snapshot. If not provided, the screenshot will be taken of viewport. If ref is provided, element must be provided too.',
          ),
        fullPage: z
          .boolean()
          .optional()
          .describe(
            'When true, takes a screenshot of the full scrollable page, instead of the currently visible viewport. Cannot be used with element screenshots.',
          ),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      answer(async () => {
        if (!!args.element !== !!args.ref) throw new ToolInputError('Both element and ref must be provided, or neither');
        if (args.fullPage && args.ref) throw new ToolInputError('fullPage cannot be used with element screenshots');
        const { page, notes } = await session.page();
        const target = args.ref ? await locateRef(page, args.ref, args.element) : null;
        const shot = await screenshot(page, target, { type: args.type ?? 'png', fullPage: !!args.fullPage }, limits.maxImageBytes);
        notes.push(...shot.notes);
        if (args.filename) notes.push(`No file was saved as ${JSON.stringify(args.filename)}: Periscope returns the image in this result.`);
        const subject = target ? `page.${await codeOf(target, args.ref as string)}` : 'page';
        const text = textResult([
          notes.length ? `### Browser\n${notes.map((n) => `- ${n}`).join('\n')}` : null,
          codeSection([
            `await ${subject}.screenshot(${optionsCode({ type: shot.type, fullPage: args.fullPage || undefined, quality: shot.quality })});`,
          ]),
          `### Result\nTook the ${target ? `screenshot of ${args.element}` : shot.fullPage ? 'full page screenshot' : 'viewport screenshot'} of ${page.url()}`,
        ]);
        return {
          content: [...text.content, { type: 'image', data: Buffer.from(shot.data).toString('base64'), mimeType: `image/${shot.type}` }],
        };
      }),
  );

  server.registerTool(
    'browser_tabs',
    {
      title: 'Manage tabs',
      description: 'List, create, close, or select a browser tab.',
      inputSchema: {
        action: z.enum(['list', 'new', 'close', 'select']).describe('Operation to perform'),
        index: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Tab index, used for close/select. If omitted for close, current tab is closed.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ action, index }) =>
      answer(async () => {
        const notes: string[] = [];
        if (action === 'new') {
          const opened = await session.newTab();
          notes.push(...opened.notes);
        } else if (action === 'select') {
          if (index === undefined) throw new ToolInputError('Tab index is required to select a tab');
          await session.selectTab(index);
        } else if (action === 'close') {
          await session.closeTab(index);
        }
        const tabs = await session.tabs();
        return textResult([
          notes.length ? `### Browser\n${notes.map((n) => `- ${n}`).join('\n')}` : null,
          `### Open tabs\n${formatTabs(tabs)}`,
        ]);
      }),
  );

  server.registerTool(
    'browser_close',
    {
      title: 'Close browser',
      description: 'Close the page',
      inputSchema: {},
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    () =>
      answer(async () => {
        const id = session.browserId;
        await session.stopBrowser();
        return textResult([
          codeSection(['await page.close();']),
          `### Result\n${id ? `Stopped Periscope browser ${id}.` : 'No browser was open.'} The next browser tool starts a new one.`,
        ]);
      }),
  );
}

/** `example.com` is taken as `https://example.com`, as a browser's address bar would. */
export function normaliseUrl(url: string): string {
  const text = url.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^:/]+:\d+(?:[/?#]|$)/.test(text)) return text;
  if (/^localhost(?::\d+)?(?:[/?#]|$)/i.test(text) || /^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:[/?#]|$)/.test(text)) return `http://${text}`;
  return `https://${text}`;
}

/** `{ a: 1 }` for the options that are set, '' when none is. */
export function optionsCode(options: Record<string, unknown>): string {
  const set = Object.entries(options).filter(([, v]) => v !== undefined);
  return set.length ? `{ ${set.map(([k, v]) => `${k}: ${js(v)}`).join(', ')} }` : '';
}

/** The locator Playwright's codegen would write for the element (`getByRole('button', { name: 'Go' })`), else its ref. */
async function codeOf(target: Locator, ref: string): Promise<string> {
  try {
    return (await target.normalize()).toString();
  } catch {
    return `getByRef(${js(ref)})`;
  }
}

/** Let what an action started (a navigation, a re-render) finish, for a few seconds at most. */
async function settle(page: Page): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 150));
  await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => {});
}

type Shot = { data: Uint8Array; type: 'png' | 'jpeg'; quality: number | undefined; fullPage: boolean; notes: string[] };

/**
 * A screenshot no larger than `maxBytes`: as asked, else as a JPEG of lower quality, else (for a
 * full page) of the viewport only, each step said in the notes; a ToolInputError when nothing fits.
 */
async function screenshot(
  page: Page,
  target: Locator | null,
  want: { type: 'png' | 'jpeg'; fullPage: boolean },
  maxBytes: number,
): Promise<Shot> {
  const take = (type: 'png' | 'jpeg', quality: number | undefined, fullPage: boolean) => {
    const options = { type, quality, scale: 'css' as const, animations: 'disabled' as const, timeout: 15_000 };
    return target ? target.screenshot(options) : page.screenshot({ ...options, fullPage });
  };
  const attempts: Array<{ type: 'png' | 'jpeg'; quality: number | undefined; fullPage: boolean; note?: string }> = [
    { type: want.type, quality: want.type === 'jpeg' ? 80 : undefined, fullPage: want.fullPage },
    { type: 'jpeg', quality: 50, fullPage: want.fullPage, note: 'The image was too large for this result: it is a JPEG of lower quality.' },
  ];
  if (want.fullPage)
    attempts.push({
      type: 'jpeg',
      quality: 50,
      fullPage: false,
      note: 'The full page was too large for this result: this is the viewport only.',
    });
  let size = 0;
  for (const attempt of attempts) {
    const data = await take(attempt.type, attempt.quality, attempt.fullPage);
    size = data.length;
    if (size <= maxBytes)
      return { data, type: attempt.type, quality: attempt.quality, fullPage: attempt.fullPage, notes: attempt.note ? [attempt.note] : [] };
  }
  throw new ToolInputError(
    `The screenshot is ${size.toLocaleString('en')} bytes, more than the ${maxBytes.toLocaleString('en')} a result may carry: screenshot an element instead`,
  );
}
