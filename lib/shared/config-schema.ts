import { hostname } from 'node:os';
import { z } from 'zod';
import { postgresUrlProblem } from './postgres.ts';
import { redisUrlProblem } from './redis.ts';

/** Thrown when the environment does not describe a runnable configuration. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** An integer environment variable with a default (undefined: worked out where it is used) and bounds. */
export const intVar = <F extends number | undefined>(fallback: F, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v): number | F => v ?? fallback);

export const portVar = (fallback: number) => intVar(fallback, 0, 65535);

/** An absolute http(s) or ws(s) base address, normalised without a trailing slash. */
export const baseUrlVar = (schemes: readonly string[]) =>
  z
    .string()
    .trim()
    .url('must be an absolute URL')
    .refine((v) => schemes.includes(new URL(v).protocol), `scheme must be one of ${schemes.join(', ')}`)
    .refine((v) => {
      const u = new URL(v);
      return !u.search && !u.hash && !u.username && !u.password;
    }, 'must not carry a query, fragment or credentials')
    .transform((v) => v.replace(/\/+$/, ''))
    .optional();

export const listVar = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Parse `env` with `schema`, or throw a ConfigError naming every offending variable. */
export function parseEnv<T extends z.ZodType>(schema: T, env: Env): z.output<T> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`));
}

/** DATA_DIR: where a process keeps its files (SQLite databases, secrets, index, recordings); ./data when unset. */
export const dataDirVar = z
  .string()
  .trim()
  .min(1)
  .optional()
  .transform((v) => v ?? './data');

/** DATABASE_URL: unset or empty keeps data in DATA_DIR (SQLite); a postgres:// address moves it there. */
export const databaseUrlVar = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .superRefine((v, ctx) => {
    const problem = v === undefined ? null : postgresUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** REDIS_URL: unset or empty keeps shared state in memory (one node); a redis:// address moves it there. */
export const redisUrlVar = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .superRefine((v, ctx) => {
    const problem = v === undefined ? null : redisUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A node's name in a cluster (NODE_ID, PORTAL_NODE_ID): what logs, the registry and signatures call it. */
export const nodeIdVar = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be 1 to 63 letters, digits, dots, dashes or underscores')
  .optional();

/** CLUSTER_SECRET: signs node-to-node requests; the same on every node. */
export const clusterSecretVar = z
  .string()
  .trim()
  .min(32, 'must be at least 32 characters (generate one with: openssl rand -base64 32)')
  .optional();

/** Why REDIS_URL without CLUSTER_SECRET cannot run. */
export const CLUSTER_SECRET_REQUIRED =
  'CLUSTER_SECRET: must be set (the same on every node) when REDIS_URL is: it signs node-to-node requests (generate one with: openssl rand -base64 32)';

/** A node's name when none is configured: the host's name and the port, stable across restarts. */
export const defaultNodeId = (port: number): string =>
  `${hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 50)}-${port}`;
