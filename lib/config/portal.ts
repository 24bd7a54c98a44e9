import { z } from 'zod';
import { baseUrlVar, parseEnv, portVar, type Env } from './schema.ts';

const schema = z.object({
  HOST: z.string().trim().min(1).optional().transform((v) => v ?? '127.0.0.1'),
  PORT: portVar(3000),
  SERVICE_PORT: portVar(3100),
  SERVICE_URL: baseUrlVar(['http:', 'https:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional().transform((v) => v ?? 'info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).optional().transform((v) => v ?? 'production'),
});

export type PortalConfig = {
  host: string;
  port: number;
  /** Base address of the service's public interface (browser flow and search). */
  serviceUrl: string;
  logLevel: string;
  dev: boolean;
};

/** Parse the portal's environment once, at start-up. Throws ConfigError with every problem. */
export function loadPortalConfig(env: Env = process.env): PortalConfig {
  const v = parseEnv(schema, env);
  return {
    host: v.HOST,
    port: v.PORT,
    serviceUrl: v.SERVICE_URL ?? `http://127.0.0.1:${v.SERVICE_PORT}`,
    logLevel: v.LOG_LEVEL,
    dev: v.NODE_ENV === 'development',
  };
}
