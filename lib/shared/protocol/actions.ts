import { z } from 'zod';
import { ValidationFailed, type FieldIssue } from '../errors.ts';

/**
 * The one-call page actions (docs/api.md, "Page actions"): `POST /v0/fetch`, `/v0/screenshot` and
 * `/v0/pdf`, each a JSON body validated here where it enters. Unknown fields are ignored, as the
 * search API does, so clients may send fields a later version understands.
 */
export const MAX_TIMEOUT_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest address taken (what browsers and most servers take). */
export const MAX_URL_CHARS = 8192;
export const MAX_VIEWPORT = { width: 3840, height: 2160 } as const;
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];
export const FETCH_FORMATS = ['markdown', 'html', 'text'] as const;
export type FetchFormat = (typeof FETCH_FORMATS)[number];
export const PAPER_FORMATS = {
  letter: [8.5, 11],
  legal: [8.5, 14],
  tabloid: [11, 17],
  a3: [11.69, 16.54],
  a4: [8.27, 11.69],
  a5: [5.83, 8.27],
} as const;

const url = z
  .string({ error: (i) => (i.input === undefined ? 'required' : 'must be a string') })
  .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
  .transform((text, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(text.slice(0, 100))} is not an absolute address such as https://example.com/`,
      });
      return z.NEVER;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: `must be an http or https address, not ${parsed.protocol}` });
      return z.NEVER;
    }
    if (parsed.username || parsed.password) {
      ctx.addIssue({ code: 'custom', message: 'must not hold a user name or password' });
      return z.NEVER;
    }
    return parsed.href;
  });

const whole = (min: number, max: number, what = `a whole number from ${min} to ${max}`) =>
  z
    .number({ error: `must be ${what}` })
    .int(`must be ${what}`)
    .min(min, `must be ${what}`)
    .max(max, `must be ${what}`);

const common = {
  url,
  waitUntil: z.enum(WAIT_UNTIL, { error: `must be one of ${WAIT_UNTIL.join(', ')}` }).optional(),
  timeoutMs: whole(1, MAX_TIMEOUT_MS).optional(),
};

const viewport = z
  .object(
    { width: whole(100, MAX_VIEWPORT.width), height: whole(100, MAX_VIEWPORT.height) },
    { error: 'must be an object { width, height }' },
  )
  .optional();

const schemas = {
  fetch: z.object({ ...common, format: z.enum(FETCH_FORMATS, { error: `must be one of ${FETCH_FORMATS.join(', ')}` }).optional() }),
  screenshot: z.object({
    ...common,
    format: z.enum(['png', 'jpeg'], { error: 'must be png or jpeg' }).optional(),
    quality: whole(1, 100).optional(),
    fullPage: z.boolean({ error: 'must be true or false' }).optional(),
    viewport,
  }),
  pdf: z.object({
    ...common,
    format: z
      .string({ error: 'must be a string' })
      .transform((s) => s.toLowerCase())
      .pipe(
        z.enum(Object.keys(PAPER_FORMATS) as [keyof typeof PAPER_FORMATS], {
          error: `must be one of ${Object.keys(PAPER_FORMATS).join(', ')}`,
        }),
      )
      .optional(),
    landscape: z.boolean({ error: 'must be true or false' }).optional(),
    printBackground: z.boolean({ error: 'must be true or false' }).optional(),
    scale: z
      .number({ error: 'must be a number from 0.1 to 2' })
      .min(0.1, 'must be a number from 0.1 to 2')
      .max(2, 'must be a number from 0.1 to 2')
      .optional(),
    margin: z
      .object(
        Object.fromEntries(
          (['top', 'right', 'bottom', 'left'] as const).map((side) => [
            side,
            z
              .number({ error: 'must be inches from 0 to 4' })
              .min(0, 'must be inches from 0 to 4')
              .max(4, 'must be inches from 0 to 4')
              .optional(),
          ]),
        ) as Record<'top' | 'right' | 'bottom' | 'left', z.ZodOptional<z.ZodNumber>>,
        { error: 'must be an object { top, right, bottom, left } in inches' },
      )
      .optional(),
    pageRanges: z
      .string({ error: 'must be a string such as "1-5, 8"' })
      .regex(/^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/, 'must be page numbers and ranges such as "1-5, 8"')
      .optional(),
  }),
};

export type PageAction = keyof typeof schemas;
export const PAGE_ACTIONS = Object.keys(schemas) as PageAction[];

type Common = { url: string; waitUntil: WaitUntil; timeoutMs: number };
export type FetchRequest = Common & { format: FetchFormat };
export type ScreenshotRequest = Common & {
  format: 'png' | 'jpeg';
  quality?: number;
  fullPage: boolean;
  viewport: { width: number; height: number };
};
export type PdfRequest = Common & {
  /** Paper size in inches. */
  paper: { width: number; height: number };
  landscape: boolean;
  printBackground: boolean;
  scale: number;
  /** In inches. */
  margin: { top: number; right: number; bottom: number; left: number };
  pageRanges?: string;
};
export type ActionRequest = { fetch: FetchRequest; screenshot: ScreenshotRequest; pdf: PdfRequest };

/** `POST /v0/fetch`'s answer. */
export type FetchAnswer = {
  url: string;
  /** Where the page ended up after redirects. */
  finalUrl: string;
  /** The HTTP status of the page's own document (a 404 page is a page). */
  status: number;
  title: string;
  /** The page's main content in `format`. */
  content: string;
  /** Every http(s) link of the page, absolute, without repeats, in document order. */
  links: string[];
};

/** Check a parsed body for `action`: the request with its defaults filled in, or every offending field. */
export function checkActionRequest<A extends PageAction>(
  action: A,
  value: unknown,
): { ok: true; request: ActionRequest[A] } | { ok: false; issues: FieldIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, issues: [{ field: 'body', message: 'must be a JSON object' }] };
  const r = schemas[action].safeParse(value);
  if (!r.success)
    return { ok: false, issues: r.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })) };
  const d = r.data as z.infer<(typeof schemas)['pdf']> & z.infer<(typeof schemas)['screenshot']> & z.infer<(typeof schemas)['fetch']>;
  const base: Common = { url: d.url, waitUntil: d.waitUntil ?? 'load', timeoutMs: d.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  const requests: { [K in PageAction]: () => ActionRequest[K] } = {
    fetch: () => ({ ...base, format: (d.format as FetchFormat | undefined) ?? 'markdown' }),
    screenshot: () => ({
      ...base,
      format: (d.format as 'png' | 'jpeg' | undefined) ?? 'png',
      ...(d.quality !== undefined ? { quality: d.quality } : {}),
      fullPage: d.fullPage ?? false,
      viewport: d.viewport ?? { ...DEFAULT_VIEWPORT },
    }),
    pdf: () => {
      const [width, height] = PAPER_FORMATS[(d.format as keyof typeof PAPER_FORMATS | undefined) ?? 'letter'];
      return {
        ...base,
        paper: { width, height },
        landscape: d.landscape ?? false,
        printBackground: d.printBackground ?? false,
        scale: d.scale ?? 1,
        margin: { top: 0.4, right: 0.4, bottom: 0.4, left: 0.4, ...stripUndefined(d.margin ?? {}) },
        ...(d.pageRanges ? { pageRanges: d.pageRanges.replace(/\s+/g, '') } : {}),
      };
    },
  };
  if (action === 'screenshot' && d.quality !== undefined && d.format !== 'jpeg')
    return { ok: false, issues: [{ field: 'quality', message: 'applies to jpeg only: add "format": "jpeg"' }] };
  return { ok: true, request: requests[action]() as ActionRequest[A] };
}

/** Parse a request body's text; throws ValidationFailed naming every offending field. */
export function parseActionBody<A extends PageAction>(action: A, text: string): ActionRequest[A] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ValidationFailed([{ field: 'body', message: `not valid JSON (${(err as Error).message.slice(0, 120)})` }]);
  }
  const checked = checkActionRequest(action, json);
  if (!checked.ok) throw new ValidationFailed(checked.issues);
  return checked.request;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
