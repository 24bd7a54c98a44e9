import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Periscope } from '@periscope/client';
import { TooManyRequests } from '#shared/errors.ts';
import { authenticate } from '#service/keys/auth.ts';
import { bearerToken } from '#service/keys/token.ts';
import { createMcpSession, type McpSession } from '#mcp/server.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/router.ts';
import type { ServiceContext } from '../context.ts';

/** MCP sessions one key may hold at once; each is small until it starts a browser, which the key's own limit bounds. */
const SESSIONS_PER_KEY = 64;

type Entry = {
  id: string;
  keyId: string;
  transport: StreamableHTTPServerTransport;
  session: McpSession;
  idle: NodeJS.Timeout | null;
  busy: number;
};

/**
 * `/mcp`: the MCP server over Streamable HTTP (docs/api.md, "MCP server"). The API key is the bearer
 * token of every request; a session (its `Mcp-Session-Id`) belongs to the key that opened it. Each
 * session's server is a client of this service's public interface, reached over the address the
 * request came in on, with the caller's key. A session ends on DELETE, after
 * MCP_SESSION_IDLE_SECONDS without a request, and at shutdown; its browser ends with it. With
 * several nodes, a session's id names its node, and any node passes its requests on to that one.
 */
export class McpEndpoint {
  readonly #ctx: ServiceContext;
  readonly #sessions = new Map<string, Entry>();
  #closed = false;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

  readonly handle: Handler = async (req, res) => {
    const key = await authenticate(this.#ctx.keys, req.headers.authorization);
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id) {
      // Several nodes: a session lives on the node that opened it, which its id names.
      const cluster = this.#ctx.cluster;
      const owner = cluster ? nodeOfSession(id) : null;
      if (cluster && owner && owner !== cluster.nodeId && !cluster.isFromNode(req)) return cluster.forwardTo(owner, req, res);
      const entry = this.#sessions.get(id);
      // Another key's session is as unknown as one that ended.
      if (!entry || entry.keyId !== key.id)
        return rpcError(res, 404, -32001, 'Session not found: it ended or never existed; initialize a new one');
      return this.#serve(entry, req, res);
    }
    if (req.method !== 'POST')
      return rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; initialize a session with a POST first');
    if (this.#closed) return rpcError(res, 503, -32000, 'The service is shutting down');
    const held = [...this.#sessions.values()].filter((e) => e.keyId === key.id).length;
    if (held >= SESSIONS_PER_KEY)
      throw new TooManyRequests(
        `this key holds ${held} MCP sessions, the most it may; end one (DELETE /mcp) or wait for one to idle out`,
        this.#ctx.config.mcp.idleMs / 1000,
      );
    await this.#open(key.id, bearerToken(req.headers.authorization) as string, req, res);
  };

  /** End every session (and so their browsers): the service is stopping. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions.values()].map((e) => this.#end(e)));
  }

  async #open(keyId: string, apiKey: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const local = serviceAddress(req);
    const session = createMcpSession({
      periscope: new Periscope({ apiKey, baseUrl: local, maxRetries: 1 }),
      browserIdleMs: this.#ctx.config.mcp.idleMs,
      devtoolsOrigin: local.replace(/^http/, 'ws'),
    });
    const opened: { entry: Entry | null } = { entry: null };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionIdOn(this.#ctx.cluster?.nodeId ?? null),
      onsessioninitialized: (id) => {
        opened.entry = { id, keyId, transport, session, idle: null, busy: 0 };
        this.#sessions.set(id, opened.entry);
        this.#ctx.log.info({ mcpSession: id, keyId }, 'MCP session opened');
      },
      // DELETE /mcp: answered once the session's browser has stopped.
      onsessionclosed: async (id) => {
        const ended = this.#sessions.get(id);
        if (ended) await this.#end(ended);
      },
    });
    transport.onerror = (err) => this.#ctx.log.debug({ err }, 'MCP transport error');
    try {
      await session.server.connect(transport);
      await transport.handleRequest(req, res);
    } finally {
      if (opened.entry) this.#arm(opened.entry);
      // Not an initialize request (the transport refused it), or a failure: nothing is kept.
      else await session.close();
    }
  }

  async #serve(entry: Entry, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A POST is work in progress; a GET is the client listening for notifications, which does not keep a session alive.
    const working = req.method === 'POST';
    if (working) entry.busy++;
    this.#arm(entry);
    try {
      await entry.transport.handleRequest(req, res);
    } finally {
      if (working) entry.busy--;
      if (this.#sessions.has(entry.id)) this.#arm(entry);
    }
  }

  #arm(entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    const idleMs = this.#ctx.config.mcp.idleMs;
    entry.idle = setTimeout(() => {
      if (entry.busy > 0) return this.#arm(entry);
      this.#ctx.log.info({ mcpSession: entry.id, idleSeconds: idleMs / 1000 }, 'MCP session idle: ended');
      void this.#end(entry);
    }, idleMs);
    entry.idle.unref();
  }

  async #end(entry: Entry): Promise<void> {
    if (this.#sessions.get(entry.id) !== entry) return;
    this.#sessions.delete(entry.id);
    if (entry.idle) clearTimeout(entry.idle);
    await entry.session
      .close()
      .catch((err: Error) => this.#ctx.log.warn({ err, mcpSession: entry.id }, 'could not end an MCP session cleanly'));
    this.#ctx.log.info({ mcpSession: entry.id }, 'MCP session ended');
  }
}

/** A new session's id: a random UUID, after the node's id (base64url, then `.`) when there are several nodes. */
export function sessionIdOn(nodeId: string | null): string {
  return nodeId === null ? randomUUID() : `${Buffer.from(nodeId, 'utf8').toString('base64url')}.${randomUUID()}`;
}

/** The node a session id names, or null for a single node's id (or one that is not ours). */
export function nodeOfSession(id: string): string | null {
  const m = /^([A-Za-z0-9_-]{1,200})\.[0-9a-f-]{36}$/.exec(id);
  return m?.[1] ? Buffer.from(m[1], 'base64url').toString('utf8') : null;
}

/** This service as the request reached it: the MCP server's client calls back over the same address. */
function serviceAddress(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort}`;
}

/** A JSON-RPC error answer, as the MCP transport itself words its refusals. */
function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
