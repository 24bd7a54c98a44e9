import { z } from 'zod';
import { ValidationFailed, type FieldIssue } from '../errors.ts';
import { MAX_SITES, normaliseHost } from './site-hosts.ts';

/**
 * The search request body (docs/api.md, "POST {search_url}/v0/search"), validated where it enters.
 * - `query`: a string of 1 to 348 characters, counted as Unicode code points (so an emoji or a
 *   CJK character is one character, whatever its UTF-16 or UTF-8 length).
 * - `language`: optional, a two-letter code, optionally with a region (`pt-BR`), any case;
 *   default `en`. Only the two letters are used.
 * - `exact`: optional boolean, default false; true searches the words as typed, without
 *   correcting misspelt ones (the "search instead for" link after a corrected search).
 * - `count`: optional, 1 to 50 results; the service's default is its SEARCH_RESULTS.
 * - `offset`: optional, how many results to skip (paging); offset + count at most MAX_DEPTH.
 * - `sites`, `excludeSites`: optional lists of up to 20 host names (site-hosts.ts); a host
 *   stands for itself and every host under it.
 * - Unknown fields are ignored, so clients may send fields a later version understands.
 */
export const MAX_QUERY_CHARS = 348;
export const MAX_COUNT = 50;
/** How deep results can be paged: offset + count is at most this. */
export const MAX_DEPTH = 200;

export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const schema = z.object({
  query: z
    .string({ error: (i) => (i.input === undefined ? 'required' : 'must be a string') })
    .refine((q) => codePoints(q) >= 1, 'must not be empty')
    .refine((q) => codePoints(q) <= MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
    .refine((q) => q.isWellFormed(), 'must be valid Unicode text'),
  language: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Za-z]{2}(?:[-_][A-Za-z]{2})?$/, 'must be a two-letter language code such as "en" or "fr"')
    .optional(),
  exact: z.boolean({ error: 'must be true or false' }).optional(),
  count: z
    .number({ error: `must be a whole number from 1 to ${MAX_COUNT}` })
    .int(`must be a whole number from 1 to ${MAX_COUNT}`)
    .min(1, `must be a whole number from 1 to ${MAX_COUNT}`)
    .max(MAX_COUNT, `must be a whole number from 1 to ${MAX_COUNT}`)
    .optional(),
  offset: z
    .number({ error: 'must be a whole number, 0 or more' })
    .int('must be a whole number, 0 or more')
    .min(0, 'must be a whole number, 0 or more')
    .optional(),
  sites: hostList(),
  excludeSites: hostList(),
});

/** A list of host names: each one checked (an issue per bad entry), lower-cased, without repeats, sorted. */
function hostList() {
  return z
    .array(z.unknown(), { error: 'must be an array of host names, such as ["docs.python.org"]' })
    .max(MAX_SITES, `must name at most ${MAX_SITES} hosts`)
    .transform((entries, ctx) => {
      const hosts = new Set<string>();
      for (const entry of entries) {
        const h = typeof entry === 'string' ? normaliseHost(entry) : { problem: `${JSON.stringify(entry)} is not a string` };
        if ('host' in h) hosts.add(h.host);
        else ctx.addIssue({ code: 'custom', message: h.problem });
      }
      return [...hosts].sort();
    })
    .optional();
}

/**
 * The request to search. `exact`, `count`, `offset` (when not 0), `sites` and `excludeSites`
 * (when not empty) are present only when asked for, so a body that asks for none of them is as
 * it always was.
 */
export type SearchBody = {
  query: string;
  language: string;
  exact?: true;
  count?: number;
  offset?: number;
  sites?: string[];
  excludeSites?: string[];
};

/** `defaultCount`: the results a request without `count` gets (the service's SEARCH_RESULTS). A
 * caller that does not know it (the portal) checks `offset` against the smallest count, so it
 * never refuses what the service would take. */
export type SearchRules = { defaultCount?: number };

/** The language a search runs in: the tag's two letters in lower case, English when none is given. */
export function searchLanguage(tag: string | null | undefined): string {
  return (tag || 'en').slice(0, 2).toLowerCase();
}

/** Paging past MAX_DEPTH, named on `offset`; null when within it or when `offset` or `count` breaks its own rule. */
function depthIssue(value: Record<string, unknown>, rules: SearchRules): FieldIssue | null {
  const whole = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
  const { offset } = value;
  const count = value.count ?? rules.defaultCount ?? 1;
  if (!whole(offset, 0, Infinity) || !whole(count, 1, MAX_COUNT) || offset + count <= MAX_DEPTH) return null;
  return {
    field: 'offset',
    message: `offset + count must be at most ${MAX_DEPTH}: results are paged ${MAX_DEPTH} deep (with count ${count}, the last page starts at offset ${MAX_DEPTH - count})`,
  };
}

/** Check a request that is already an object; the body to search, or every offending field. */
export function checkSearchRequest(
  value: unknown,
  rules: SearchRules = {},
): { ok: true; body: SearchBody } | { ok: false; issues: FieldIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, issues: [{ field: 'body', message: 'must be a JSON object' }] };
  const r = schema.safeParse(value);
  const depth = depthIssue(value as Record<string, unknown>, rules);
  if (!r.success || depth) {
    const issues = r.success ? [] : r.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }));
    return { ok: false, issues: depth ? [...issues, depth] : issues };
  }
  const d = r.data;
  return {
    ok: true,
    body: {
      query: d.query,
      language: searchLanguage(d.language),
      ...(d.exact ? { exact: true as const } : {}),
      ...(d.count !== undefined ? { count: d.count } : {}),
      ...(d.offset ? { offset: d.offset } : {}),
      ...(d.sites?.length ? { sites: d.sites } : {}),
      ...(d.excludeSites?.length ? { excludeSites: d.excludeSites } : {}),
    },
  };
}

/** As checkSearchRequest, throwing ValidationFailed naming every offending field. */
export function parseSearchRequest(value: unknown, rules: SearchRules = {}): SearchBody {
  const checked = checkSearchRequest(value, rules);
  if (!checked.ok) throw new ValidationFailed(checked.issues);
  return checked.body;
}

/** Parse a request body's text (the service's route); throws ValidationFailed naming every offending field. */
export function parseSearchBody(text: string, rules: SearchRules = {}): SearchBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ValidationFailed([{ field: 'body', message: `not valid JSON (${(err as Error).message.slice(0, 120)})` }]);
  }
  return parseSearchRequest(json, rules);
}
