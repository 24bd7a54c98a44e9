import { z } from 'zod';
import { intVar, parseEnv, type Env } from '#shared/config-schema.ts';

const schema = z.object({
  PERISCOPE_API_KEY: z
    .string({ error: 'is required: the API key (psk_…) the MCP server uses' })
    .trim()
    .min(1, 'is required: the API key (psk_…) the MCP server uses'),
  PERISCOPE_URL: z.string().trim().url('must be the service address, e.g. http://127.0.0.1:3100').optional(),
  PERISCOPE_PORTAL_URL: z.string().trim().url('must be an address in the portal, e.g. https://portal.example.com/teams/<team>').optional(),
  MCP_SESSION_IDLE_SECONDS: intVar(300, 0, 7 * 24 * 3600),
  MCP_MAX_TEXT_CHARS: intVar(40_000, 1_000, 1_000_000),
});

export type McpCliConfig = {
  apiKey: string;
  /** Undefined: the client's own default (http://127.0.0.1:3100). */
  baseUrl: string | undefined;
  portalUrl: string | undefined;
  /** The browser stops after this long without a browser tool call (0: never). */
  idleMs: number;
  maxTextChars: number;
};

/** `npm run mcp`'s environment; throws ConfigError naming every problem. */
export function loadMcpCliConfig(env: Env): McpCliConfig {
  const v = parseEnv(schema, env);
  return {
    apiKey: v.PERISCOPE_API_KEY,
    baseUrl: v.PERISCOPE_URL,
    portalUrl: v.PERISCOPE_PORTAL_URL,
    idleMs: v.MCP_SESSION_IDLE_SECONDS * 1000,
    maxTextChars: v.MCP_MAX_TEXT_CHARS,
  };
}
