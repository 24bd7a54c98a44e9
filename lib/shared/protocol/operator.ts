import { z } from 'zod';
import { ValidationFailed, type FieldIssue } from '../errors.ts';

/**
 * The service's operator interface for API keys (docs/api.md, "Operator interface"; decision 0107):
 * what `npm run keys` does, over HTTP, for whoever holds the operator token (SERVICE_OPERATOR_TOKEN).
 * The service parses requests with these schemas; the portal's client parses the answers with them.
 *
 *   GET    /v0/operator/keys        -> 200 { keys: OperatorKey[] }
 *   POST   /v0/operator/keys        NewOperatorKey -> 201 { key: OperatorKey, token }
 *   GET    /v0/operator/keys/{id}   -> 200 { key: OperatorKey }
 *   PATCH  /v0/operator/keys/{id}   KeyChange -> 200 { key: OperatorKey }
 *   DELETE /v0/operator/keys/{id}   -> 200 { key: OperatorKey, revoked: boolean } (false: it already was)
 */
export const OPERATOR_KEYS_PATH = '/v0/operator/keys';

/** A key's id: the 16 hex characters after `psk_` in the key itself. */
export const KEY_ID_RE = /^[0-9a-f]{16}$/;

/** Largest request body accepted. */
export const OPERATOR_MAX_BODY_BYTES = 4096;

const limit = z.number().int().min(1).max(1_000_000);

export const newOperatorKeySchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters'),
    ratePerMinute: limit.optional(),
    maxInstances: limit.optional(),
    actionsPerMinute: limit.optional(),
    record: z.boolean().optional(),
  })
  .strict();
export type NewOperatorKey = z.input<typeof newOperatorKeySchema>;

/** A change of a key: whether its browsers are recorded, and its limits (`actionsPerMinute` null: the service's default); at least one. */
export const keyChangeSchema = z
  .object({
    record: z.boolean().optional(),
    ratePerMinute: limit.optional(),
    maxInstances: limit.optional(),
    actionsPerMinute: limit.nullable().optional(),
  })
  .strict()
  .refine((c) => Object.keys(c).length > 0, 'give at least one of record, ratePerMinute, maxInstances, actionsPerMinute');
export type KeyChange = z.infer<typeof keyChangeSchema>;

const isoTime = z.string().datetime();

export const operatorKeySchema = z.object({
  id: z.string().regex(KEY_ID_RE),
  name: z.string(),
  ratePerMinute: z.number().int(),
  maxInstances: z.number().int(),
  /** null: the service's default (ACTIONS_RATE_PER_MINUTE). */
  actionsPerMinute: z.number().int().nullable(),
  record: z.boolean(),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
});
export type OperatorKey = z.infer<typeof operatorKeySchema>;

export const keyListAnswer = z.object({ keys: z.array(operatorKeySchema) });
export const keyAnswer = z.object({ key: operatorKeySchema });
export const createdKeyAnswer = z.object({ key: operatorKeySchema, token: z.string().min(1) });
export const revokedKeyAnswer = z.object({ key: operatorKeySchema, revoked: z.boolean() });

/** A request body's text parsed with `schema`; ValidationFailed names every offending field. */
export function parseOperatorBody<T extends z.ZodType>(schema: T, text: string): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ValidationFailed([{ field: 'body', message: `not valid JSON (${(err as Error).message.slice(0, 120)})` }]);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues: FieldIssue[] = parsed.error.issues.map((i) => ({
    field: i.path.join('.') || (i.code === 'unrecognized_keys' ? i.keys.join(', ') : 'body'),
    message: i.message,
  }));
  throw new ValidationFailed(issues);
}
