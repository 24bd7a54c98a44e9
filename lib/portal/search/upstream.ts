import { z } from 'zod';
import { DomainError, type FieldIssue } from '#shared/errors.ts';
import { MAX_DEPTH, MAX_QUERY_CHARS, type SearchBody } from '#shared/protocol/search.ts';
import { MAX_SITES } from '#shared/protocol/site-hosts.ts';
import { TRY_REASONS, type RateState, type SearchFailureBody, type SearchFailureCode, type SearchHit, type SearchTry } from './types.ts';

/**
 * The portal's one client of the search interface (POST {search_url}/v0/search, docs/api.md):
 * the answer is validated where it enters, the limit headers become data, and every status the
 * service can answer becomes a SearchFailed with a code the page can act on.
 */
export class SearchFailed extends DomainError {
  declare readonly code: SearchFailureCode;
  readonly retryAfterSeconds: number | undefined;
  readonly rate: RateState | null;
  constructor(
    code: SearchFailureCode,
    message: string,
    extra: { retryAfterSeconds?: number; rate?: RateState | null; issues?: FieldIssue[] } = {},
  ) {
    const headers: Record<string, string> = extra.retryAfterSeconds !== undefined ? { 'retry-after': String(extra.retryAfterSeconds) } : {};
    super(code, message, { headers, ...(extra.issues ? { issues: extra.issues } : {}) });
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.rate = extra.rate ?? null;
  }
  override body(): SearchFailureBody {
    return {
      ...super.body(),
      code: this.code,
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      ...(this.rate ? { rate: this.rate } : {}),
    };
  }
}

const hosts = z.array(z.string().min(1).max(253)).max(MAX_SITES).optional();
const trySchema = z
  .object({
    query: z
      .string()
      .min(1)
      .max(MAX_QUERY_CHARS * 2),
    language: z.string().regex(/^[a-z]{2}$/),
    sites: hosts,
    excludeSites: hosts,
    why: z.enum(TRY_REASONS),
  })
  .transform((t): SearchTry => ({
    query: t.query,
    language: t.language,
    sites: t.sites ?? [],
    excludeSites: t.excludeSites ?? [],
    why: t.why,
  }));

const answerSchema = z.object({
  results: z
    .array(
      z.object({
        url: z.string(),
        title: z.string(),
        snippet: z.string(),
        // A field this portal cannot read is left out, not a failed search.
        language: z
          .string()
          .regex(/^[a-z]{2}$/)
          .optional()
          .catch(undefined),
        section: z.array(z.string().min(1).max(80)).min(1).max(6).optional().catch(undefined),
        // Shown as an image in people's browsers: https, or a small inline picture; nothing else.
        favicon: z
          .string()
          .max(4096)
          .regex(/^(?:https:\/\/[^\s"'<>]+|data:image\/(?:png|gif|x-icon|vnd\.microsoft\.icon|svg\+xml|webp|jpeg);base64,[A-Za-z0-9+/=]+)$/)
          .optional()
          .catch(undefined),
      }),
    )
    .max(100),
  corrected: z
    .object({ query: z.string().min(1).max(2000) })
    .optional()
    .catch(undefined),
  // The searches to try after an empty search; one the portal cannot read is left out.
  tries: z
    .array(z.unknown())
    .max(10)
    .optional()
    .catch(undefined)
    .transform((entries) =>
      (entries ?? []).flatMap((t) => {
        const r = trySchema.safeParse(t);
        return r.success ? [r.data] : [];
      }),
    ),
  // Where the next page starts; one the portal cannot read is as if there were none.
  next: z
    .object({ offset: z.number().int().min(1).max(MAX_DEPTH) })
    .optional()
    .catch(undefined),
});
const errorSchema = z
  .object({ error: z.string().optional(), issues: z.array(z.object({ field: z.string(), message: z.string() })).optional() })
  .passthrough();

const num = (v: string | null): number | null => {
  if (v === null || !/^\s*\d+\s*$/.test(v)) return null;
  return Number(v);
};

/** The limit headers of an answer (X-RateLimit-*, the window from RateLimit-Policy), or null when absent. */
export function readRateHeaders(h: Headers): RateState | null {
  const limit = num(h.get('x-ratelimit-limit'));
  const remaining = num(h.get('x-ratelimit-remaining'));
  const reset = num(h.get('x-ratelimit-reset')) ?? num(h.get('retry-after'));
  if (limit === null || remaining === null || reset === null) return null;
  const w = /(?:^|;)\s*w=(\d+)/.exec(h.get('ratelimit-policy') ?? '');
  return { limit, remaining: Math.min(remaining, limit), resetSeconds: reset, windowSeconds: w ? Number(w[1]) : null };
}

export type UpstreamAnswer = {
  results: SearchHit[];
  corrected: string | null;
  next: { offset: number } | null;
  tries: SearchTry[];
  rate: RateState | null;
};

const TIMEOUT_MS = 10_000;

export async function callSearch(baseUrl: string, token: string, body: SearchBody): Promise<UpstreamAnswer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${baseUrl}/v0/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new SearchFailed(
      'upstream_failed',
      timedOut ? 'The search service did not answer in time.' : 'The search service could not be reached.',
    );
  }
  const rate = readRateHeaders(res.headers);
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // handled below: an answer that is not JSON is a failed answer
  }
  if (res.status === 200) {
    const parsed = answerSchema.safeParse(json);
    if (!parsed.success)
      throw new SearchFailed('upstream_failed', 'The search service sent an answer the portal could not read.', { rate });
    // Fields left out rather than undefined: a cached answer and a fresh one are alike.
    const results = parsed.data.results.map(
      (hit) => Object.fromEntries(Object.entries(hit).filter(([, v]) => v !== undefined)) as SearchHit,
    );
    return { results, corrected: parsed.data.corrected?.query ?? null, next: parsed.data.next ?? null, tries: parsed.data.tries, rate };
  }
  const err = errorSchema.safeParse(json);
  const detail = err.success ? err.data : {};
  switch (res.status) {
    case 401:
      throw new SearchFailed('key_refused', "The search service refused this team's API key (it is revoked or unknown).");
    case 429: {
      const retryAfter = num(res.headers.get('retry-after')) ?? rate?.resetSeconds ?? 1;
      const limited: RateState | null = rate ? { ...rate, remaining: 0, resetSeconds: retryAfter } : null;
      throw new SearchFailed(
        'rate_limited',
        `This team's key has used its searches for now; searching is possible again in ${retryAfter} s.`,
        { retryAfterSeconds: Math.max(1, retryAfter), rate: limited },
      );
    }
    case 400:
    case 413:
      throw new SearchFailed('invalid', 'The search service did not accept this query.', { rate, issues: detail.issues ?? [] });
    default:
      if (res.status >= 500) throw new SearchFailed('upstream_failed', 'The search service could not answer just now.', { rate });
      throw new SearchFailed('upstream_rejected', `The search service answered with an unexpected status (${res.status}).`, { rate });
  }
}
