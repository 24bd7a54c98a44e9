import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Periscope } from '@periscope/client';
import { BrowserSession } from './browser-session.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { registerBrowserTools } from './tools/browser.ts';
import { registerFetchTool } from './tools/fetch.ts';
import { registerSearchTool } from './tools/search.ts';

export const SERVER_NAME = 'periscope';
export const SERVER_VERSION = '0.1.0';

export type McpSessionOptions = {
  /** The client of the service, with the key of the session's user. */
  periscope: Pick<Periscope, 'browsers' | 'search' | 'fetch'>;
  /** Stop the session's browser after this long without a browser tool call; 0: never. */
  browserIdleMs: number;
  /** Connect to the browsers' DevTools at this origin instead of the advertised one (the service's own /mcp). */
  devtoolsOrigin?: string;
  /** The portal's live view of a browser, from its id; undefined: no link. */
  liveViewUrl?: (browserId: string) => string;
  limits?: Partial<Limits>;
};

/** One MCP session: the server with its tools, and its browser (started by the first browser tool). */
export type McpSession = {
  server: McpServer;
  browser: BrowserSession;
  /** End the session: stop its browser and close the server's transport. */
  close(): Promise<void>;
};

/**
 * The MCP server of one session (one stdio process, or one `Mcp-Session-Id` of the service's /mcp),
 * a client of the service's public interface like any user's code (docs/decisions/0101-mcp-server.md).
 */
export function createMcpSession(options: McpSessionOptions): McpSession {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Periscope: web search and a remote Chromium. Use `search` to find pages; the browser_* tools drive a browser as ' +
        "Playwright MCP's do: browser_navigate, then browser_snapshot for the page's elements with [ref=…], then act on a ref.",
    },
  );
  const browser = new BrowserSession({
    periscope: options.periscope,
    idleMs: options.browserIdleMs,
    devtoolsOrigin: options.devtoolsOrigin,
    liveViewUrl: options.liveViewUrl,
  });

  // The tool list. Each tool is registered here, in the order clients list them.
  registerSearchTool(server, { periscope: options.periscope, limits });
  registerFetchTool(server, { periscope: options.periscope, limits });
  registerBrowserTools(server, { session: browser, limits });

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      await browser.close();
      await server.close().catch(() => {});
    })();
    return closing;
  };
  // A transport that closes (stdin ended, DELETE /mcp) ends the session and its browser.
  server.server.onclose = () => void close();
  return { server, browser, close };
}

/**
 * The live view's address from `PERISCOPE_PORTAL_URL`: a template with `{id}` (`…/browsers/{id}`),
 * or the team's page in the portal (`https://portal.example.com/teams/<team>`) to which
 * `/browsers/<id>` is added.
 */
export function liveViewFrom(portalUrl: string | undefined): ((browserId: string) => string) | undefined {
  if (!portalUrl) return undefined;
  if (portalUrl.includes('{id}')) return (id) => portalUrl.replaceAll('{id}', encodeURIComponent(id));
  const base = portalUrl.replace(/\/+$/, '');
  return (id) => `${base}/browsers/${encodeURIComponent(id)}`;
}
