import { z } from 'zod';

/**
 * What one portal node asks of another (decision 0095), every request signed
 * (lib/shared/node-signature.ts):
 * - `GET /_node/live/<instanceId>?viewer=<base64url JSON>` upgraded to a WebSocket: a viewer who
 *   landed on the asking node, relayed to the node that holds the browser. The socket then speaks
 *   the live view's own protocol (lib/portal/protocol/live.ts) unchanged; the asking node has checked
 *   the viewer's session or link, and says who they are in `viewer` (inside the signature).
 * - `POST /_node/browsers/<instanceId>/stop` `{reason, message, by?}` and `/rename` `{name}`: the
 *   asking node has checked that its user may.
 * - `GET /_node/browsers/<instanceId>/thumbnail`: the dashboard's small picture of it (JPEG, its
 *   source in `x-periscope-thumbnail-source`; 204 when there is none).
 */
export const NODE_LIVE_PATH = /^\/_node\/live\/(inst_[A-Za-z0-9_-]{16})$/;
export const NODE_ACTION_PATH = /^\/_node\/browsers\/(inst_[A-Za-z0-9_-]{16})\/(stop|rename|thumbnail)$/;
export type NodeAction = 'stop' | 'rename' | 'thumbnail';
export const NODE_ACTION_METHOD: Record<NodeAction, 'GET' | 'POST'> = { stop: 'POST', rename: 'POST', thumbnail: 'GET' };
export const THUMBNAIL_SOURCE_HEADER = 'x-periscope-thumbnail-source';
/** The largest thumbnail a node takes from another (a quarter-size JPEG is tens of KB). */
export const NODE_MAX_THUMBNAIL_BYTES = 1024 * 1024;
export const NODE_MAX_BODY_BYTES = 4096;

export const relayedViewerSchema = z
  .object({
    name: z.string().min(1).max(500),
    /** The portal user; null for a shared link's guest. */
    userId: z.string().min(1).max(200).nullable(),
    watchOnly: z.boolean(),
  })
  .strict();
export type RelayedViewer = z.infer<typeof relayedViewerSchema>;

const starter = z.object({ userId: z.string().min(1).max(200), name: z.string().max(500) }).strict();
export const nodeStopSchema = z
  .object({ reason: z.string().min(1).max(100), message: z.string().max(1000), by: starter.optional() })
  .strict();
export const nodeRenameSchema = z.object({ name: z.string().trim().min(1).max(80) }).strict();

export const encodeViewer = (v: RelayedViewer): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** The relayed viewer a node socket's query names, or null when it names none that holds up. */
export function decodeViewer(param: string | null): RelayedViewer | null {
  if (!param || param.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(param)) return null;
  try {
    const parsed = relayedViewerSchema.safeParse(JSON.parse(Buffer.from(param, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const nodeLivePath = (instanceId: string, viewer: RelayedViewer): string =>
  `/_node/live/${instanceId}?viewer=${encodeViewer(viewer)}`;
