// `npm run mcp`: Periscope's MCP server over stdio, for Claude Desktop, Cursor, VS Code and other
// MCP clients that start a local command. Configured by PERISCOPE_URL and PERISCOPE_API_KEY
// (README, "MCP server"); stdout is the protocol's, so everything else goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Periscope } from '@periscope/client';
import { ConfigError } from '#shared/config-schema.ts';
import { loadMcpCliConfig } from '#mcp/config.ts';
import { createMcpSession, liveViewFrom } from '#mcp/server.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadMcpCliConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`periscope mcp: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const periscope = new Periscope({ apiKey: config.apiKey, baseUrl: config.baseUrl });
  const session = createMcpSession({
    periscope,
    browserIdleMs: config.idleMs,
    liveViewUrl: liveViewFrom(config.portalUrl),
    limits: { maxTextChars: config.maxTextChars },
  });
  const transport = new StdioServerTransport();
  let ending = false;
  const end = (code: number) => {
    if (ending) return;
    ending = true;
    // The browser is stopped before the process goes: its /start socket closes cleanly.
    const forced = setTimeout(() => process.exit(code), 10_000);
    forced.unref();
    void session.close().finally(() => process.exit(code));
  };
  // The client closing our stdin is the end of the session.
  process.stdin.once('end', () => end(0));
  process.stdin.once('close', () => end(0));
  process.on('SIGINT', () => end(0));
  process.on('SIGTERM', () => end(0));
  await session.server.connect(transport);
  console.error(`periscope mcp: serving over stdio, service ${config.baseUrl ?? 'http://127.0.0.1:3100'}`);
}

main().catch((err: unknown) => {
  console.error(`periscope mcp: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
