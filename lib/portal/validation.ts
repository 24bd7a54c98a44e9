import type { z } from 'zod';
import { ValidationFailed } from './errors.ts';
import { fieldErrors } from './schemas.ts';

/** Input checked against a schema (lib/portal/schemas.ts), or ValidationFailed with one message per field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationFailed(
    Object.entries(fieldErrors(parsed.error)).map(([field, message]) => ({ field, message })),
    'Check the highlighted fields.',
  );
}
