import { z } from 'zod';
import { decodeWithMeta, encodeWithMeta } from './binary.ts';

/**
 * The portal's live-view socket (`/live/<instanceId>`): one typed, versioned protocol shared by the
 * server and the page. Client messages are JSON text, validated with `parseClientMessage` before
 * anything acts on them. Frames travel from the server as binary messages (`encodeFrame`); every
 * other server message is JSON text. See docs/decisions/0030-live-view-relay.md.
 */
export const LIVE_PROTOCOL_VERSION = 1;
export const LIVE_MAX_MESSAGE_BYTES = 64 * 1024;

const coord = z.number().finite().min(-100_000).max(100_000);
const modifiers = z.number().int().min(0).max(15).default(0); // Alt=1, Ctrl=2, Meta=4, Shift=8 (CDP)
const mouseButton = z.enum(['none', 'left', 'middle', 'right', 'back', 'forward']);
const shortText = z.string().max(64);
const tabId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);

export const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    v: z.number().int(),
    viewport: z.object({ width: z.number().int().min(100).max(4096), height: z.number().int().min(100).max(4096) }).optional(),
    /** False to watch without taking control even when nobody has it. */
    takeControl: z.boolean().default(true),
  }),
  z.object({
    type: z.literal('mouse'),
    action: z.enum(['move', 'down', 'up']),
    x: coord,
    y: coord,
    button: mouseButton.default('none'),
    buttons: z.number().int().min(0).max(31).default(0),
    clickCount: z.number().int().min(0).max(3).default(0),
    modifiers,
  }),
  z.object({ type: z.literal('wheel'), x: coord, y: coord, deltaX: coord, deltaY: coord, modifiers }),
  z.object({
    type: z.literal('key'),
    action: z.enum(['down', 'up']),
    key: shortText,
    code: shortText,
    text: z.string().max(16).optional(),
    location: z.number().int().min(0).max(3).default(0),
    repeat: z.boolean().default(false),
    modifiers,
  }),
  z.object({ type: z.literal('text'), text: z.string().min(1).max(32_768) }),
  z.object({
    type: z.literal('compose'),
    text: z.string().max(1024),
    selectionStart: z.number().int().min(0).max(1024),
    selectionEnd: z.number().int().min(0).max(1024),
  }),
  z.object({
    type: z.literal('touch'),
    action: z.enum(['start', 'move', 'end', 'cancel']),
    points: z
      .array(
        z.object({
          id: z.number().int().min(0).max(1000),
          x: coord,
          y: coord,
          radiusX: z.number().min(0).max(500).optional(),
          radiusY: z.number().min(0).max(500).optional(),
          force: z.number().min(0).max(1).optional(),
        }),
      )
      .max(10),
    modifiers,
  }),
  z.object({ type: z.literal('navigate'), url: z.string().min(1).max(8192) }),
  z.object({ type: z.literal('history'), action: z.enum(['back', 'forward', 'reload', 'stop']) }),
  z.discriminatedUnion('action', [
    z.object({ type: z.literal('tab'), action: z.literal('open'), url: z.string().max(8192).optional() }),
    z.object({ type: z.literal('tab'), action: z.enum(['close', 'switch']), tabId }),
  ]),
  z.object({ type: z.literal('dialog'), accept: z.boolean(), promptText: z.string().max(32_768).optional() }),
  z.object({ type: z.literal('copy') }),
  z.object({
    type: z.literal('viewport'),
    mode: z.enum(['follow', 'fixed']),
    width: z.number().int().min(100).max(4096),
    height: z.number().int().min(100).max(4096),
    /** A phone's view: the remote pages are told they run on a touch screen of a phone (device emulation). */
    mobile: z.boolean().default(false),
  }),
  z.discriminatedUnion('action', [
    // Ask for control, take the question back, or give control up; or, for a team owner or admin
    // whose question went unanswered, take control without the controller's consent (decision 0030).
    z.object({ type: z.literal('control'), action: z.enum(['request', 'withdraw', 'release', 'take']) }),
    // The viewer in control answers a question: hand over, or say no.
    z.object({ type: z.literal('control'), action: z.enum(['grant', 'decline']), viewerId: z.string().min(1).max(64) }),
  ]),
  z.object({ type: z.literal('ping'), t: z.number().finite() }),
]);

/** How long an owner's or admin's question for control goes unanswered before the page offers to take it. */
export const TAKE_CONTROL_AFTER_MS = 10_000;

export type ClientMessage = z.infer<typeof clientMessage>;
/** What a client may send: defaults may be left out. */
export type ClientMessageInput = z.input<typeof clientMessage>;
export type ClientMessageType = ClientMessage['type'];

/** Messages that only the viewer in control may send. */
export const CONTROL_ONLY: ReadonlySet<ClientMessageType> = new Set([
  'mouse',
  'wheel',
  'key',
  'text',
  'compose',
  'touch',
  'navigate',
  'history',
  'tab',
  'dialog',
  'viewport',
]);

export type TabInfo = { id: string; title: string; url: string; loading: boolean; active: boolean; problem: PageProblem | null };
/**
 * Why the tab's page did not load, in words (lib/portal/live/page-problem.ts): what happened, and
 * what the operator of the browser service could change, if anything. `code` is the browser's or
 * the egress proxy's own name for it.
 */
export type PageProblem = { url: string; code: string; title: string; detail: string; operator: string | null };
/** One viewer of a team browser; `userId` tells a person's own other tabs from teammates. */
export type ViewerInfo = { id: string; name: string; control: boolean; userId: string | null; requested: boolean };
export type DialogInfo = { dialogType: 'alert' | 'confirm' | 'prompt' | 'beforeunload'; message: string; defaultPrompt: string };

export type ServerMessage =
  | { type: 'welcome'; v: number; viewerId: string; instanceId: string }
  | {
      type: 'state';
      tabs: TabInfo[];
      viewers: ViewerInfo[];
      controllerId: string | null;
      viewport: { mode: 'follow' | 'fixed'; width: number; height: number; mobile: boolean };
    }
  | { type: 'dialog'; dialog: DialogInfo | null }
  | { type: 'clipboard'; text: string }
  /** A typed address was opened over http because https could not connect. */
  | { type: 'insecure'; url: string }
  /** The viewer in control said no to this viewer's question. */
  | { type: 'declined'; by: string }
  /** A team owner or admin, named, took control from this viewer without asking it. */
  | { type: 'taken'; by: string }
  | { type: 'pong'; t: number }
  | { type: 'error'; code: LiveErrorCode; message: string }
  | { type: 'ended'; reason: string; message: string };

export type LiveErrorCode = 'invalid-message' | 'not-in-control' | 'unsupported-version' | 'no-such-tab' | 'address-refused' | 'failed';

/** Close codes of the live-view socket. */
export const LIVE_CLOSE = {
  normal: { code: 1000, reason: 'viewer left' },
  goingAway: { code: 1001, reason: 'portal shutting down' },
  tooBig: { code: 1009, reason: 'message too big' },
  unauthenticated: { code: 4401, reason: 'sign in first' },
  forbidden: { code: 4403, reason: 'not a member of the team that owns this instance' },
  notFound: { code: 4404, reason: 'no such instance' },
  unsupportedVersion: { code: 4406, reason: 'unsupported protocol version' },
  ended: { code: 4410, reason: 'instance ended' },
  /** A shared link's view: the link was revoked, or has expired. */
  linkRevoked: { code: 4411, reason: 'the link was revoked' },
  linkExpired: { code: 4412, reason: 'the link has expired' },
  abuse: { code: 4429, reason: 'too many invalid messages' },
} as const;

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; error: string };

/** Validate one incoming text message. Never throws. */
export function parseClientMessage(text: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = clientMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid message' };
}

/** Metadata of one screencast frame, from Chromium's own ScreencastFrameMetadata. */
export type FrameMeta = {
  seq: number;
  tabId: string;
  /** CSS size of the remote viewport the frame shows. */
  deviceWidth: number;
  deviceHeight: number;
  offsetTop: number;
  pageScaleFactor: number;
  scrollOffsetX: number;
  scrollOffsetY: number;
  /** When Chromium produced the frame, and when the server received it from Chromium (ms since epoch). */
  timestamp: number;
  relayedAt: number;
};

/** A frame as a binary message (lib/portal/protocol/binary.ts): its metadata, then the JPEG bytes. */
export const encodeFrame = (meta: FrameMeta, jpeg: Uint8Array): Uint8Array => encodeWithMeta(meta, jpeg);

export function decodeFrame(data: ArrayBuffer | Uint8Array): { meta: FrameMeta; jpeg: Uint8Array } {
  const { meta, payload } = decodeWithMeta<FrameMeta>(data);
  return { meta, jpeg: payload };
}
