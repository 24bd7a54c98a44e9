import { z } from 'zod';
import { decodeWithMeta, encodeWithMeta } from './binary.ts';

/**
 * The team dashboard's push channel (`/events/<teamId>`): the server sends a snapshot of the team's
 * team browsers whenever something changes, and small thumbnails as binary messages. The client
 * only pings. See docs/decisions/0031-dashboard-push-channel.md.
 */
export const DASHBOARD_PROTOCOL_VERSION = 1;
export const DASHBOARD_MAX_MESSAGE_BYTES = 1024;

export type BrowserRow = {
  id: string;
  name: string;
  startedBy: { id: string; name: string };
  keyName: string;
  startedAt: number;
  title: string;
  url: string;
  viewers: { id: string; name: string; control: boolean; userId: string | null }[];
  canStop: boolean;
  /** A script's browser the portal watches (`startedBy` is who opened it here); it is the script's. */
  attached: boolean;
};

export type Usage = { used: number; limit: number };
export type Capacity = { team: Usage; mine: Usage; service: Usage | null };

/**
 * A browser of the team that ended: one the portal started (`id` the portal's, `name` the one its
 * starter gave it), or one a script started with a team key (`script`: `id` is the service's, `name`
 * its last page's title or address, `url` that address, `startedByName` empty). `browserId` is the
 * service's id, null for a portal record kept before the portal stored it.
 */
export type EndedInstanceView = {
  id: string;
  browserId: string | null;
  name: string;
  startedByName: string;
  keyName: string;
  startedAt: number;
  endedAt: number;
  reason: string;
  message: string;
  script: boolean;
  url: string;
};

/** A live browser started with one of the team's keys outside this portal (a script, CI): its holder is not here. */
export type KeyBrowserRow = {
  id: string;
  keyName: string;
  startedAt: number;
  title: string;
  url: string;
  tabs: number;
  /** Owners and admins may end it (the script holding it loses it). */
  canStop: boolean;
};

/**
 * A browser started from the portal that has no browser yet: the service keeps it waiting for room
 * (`/start?queue=`). Its `id` is the one the browser will have; DELETE on it cancels the wait.
 */
export type WaitingRow = {
  id: string;
  name: string;
  startedBy: { id: string; name: string };
  keyName: string;
  /** When it began to wait (epoch ms). */
  since: number;
  /** Its starter, owners and admins may cancel it. */
  canCancel: boolean;
};

export type DashboardSnapshot = {
  instances: BrowserRow[];
  waiting: WaitingRow[];
  fromKeys: KeyBrowserRow[];
  capacity: Capacity;
  history: EndedInstanceView[];
};

export type DashboardServerMessage =
  ({ type: 'snapshot'; v: number; at: number } & DashboardSnapshot) | { type: 'pong'; t: number } | { type: 'error'; message: string };

export const dashboardClientMessage = z.object({ type: z.literal('ping'), t: z.number().finite() }).strict();
export type DashboardClientMessage = z.infer<typeof dashboardClientMessage>;

export const DASHBOARD_CLOSE = {
  goingAway: { code: 1001, reason: 'portal shutting down' },
  unauthenticated: { code: 4401, reason: 'sign in first' },
  removed: { code: 4403, reason: 'no longer a member of this team' },
} as const;

export type ThumbnailMeta = { instanceId: string; at: number; source: 'screencast' | 'capture' };

export const encodeThumbnail = (meta: ThumbnailMeta, jpeg: Uint8Array): Uint8Array => encodeWithMeta(meta, jpeg);

export function decodeThumbnail(data: ArrayBuffer | Uint8Array): { meta: ThumbnailMeta; jpeg: Uint8Array } {
  const { meta, payload } = decodeWithMeta<ThumbnailMeta>(data);
  return { meta, jpeg: payload };
}
