import { z } from 'zod';
import { ValidationFailed, type FieldIssue } from '../errors.ts';

/**
 * The search request body (docs/api.md, "POST {search_url}/v0/search"), validated where it enters.
 * - `query`: a string of 1 to 348 characters, counted as Unicode code points (so an emoji or a
 *   CJK character is one character, whatever its UTF-16 or UTF-8 length).
 * - `language`: optional, a two-letter code, optionally with a region (`pt-BR`), any case;
 *   default `en`. Only the two letters are used.
 * - `exact`: optional boolean, default false; true searches the words as typed, without
 *   correcting misspelt ones (the "search instead for" link after a corrected search).
 * - Unknown fields are ignored, so clients may send fields a later version understands.
 */
export const MAX_QUERY_CHARS = 348;

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
});

/** `exact` is present only when true, so a body that does not ask for it is as it always was. */
export type SearchBody = { query: string; language: string; exact?: true };

/** The language a search runs in: the tag's two letters in lower case, English when none is given. */
export function searchLanguage(tag: string | null | undefined): string {
  return (tag || 'en').slice(0, 2).toLowerCase();
}

/** Check a request that is already an object; the body to search, or every offending field. */
export function checkSearchRequest(value: unknown): { ok: true; body: SearchBody } | { ok: false; issues: FieldIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, issues: [{ field: 'body', message: 'must be a JSON object' }] };
  const r = schema.safeParse(value);
  if (!r.success)
    return { ok: false, issues: r.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })) };
  return {
    ok: true,
    body: { query: r.data.query, language: searchLanguage(r.data.language), ...(r.data.exact ? { exact: true as const } : {}) },
  };
}

/** As checkSearchRequest, throwing ValidationFailed naming every offending field. */
export function parseSearchRequest(value: unknown): SearchBody {
  const checked = checkSearchRequest(value);
  if (!checked.ok) throw new ValidationFailed(checked.issues);
  return checked.body;
}

/** Parse a request body's text (the service's route); throws ValidationFailed naming every offending field. */
export function parseSearchBody(text: string): SearchBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ValidationFailed([{ field: 'body', message: `not valid JSON (${(err as Error).message.slice(0, 120)})` }]);
  }
  return parseSearchRequest(json);
}
