import { z } from 'zod';
import type { TeamBrowser } from './team-browsers.ts';

const text = (max: number) => z.string().max(max);

/**
 * What every portal node may know of a team browser, whichever node holds it (decision 0095): the
 * dashboard's row without the per-person `canStop`, plus who holds it. Read back from Redis through
 * this schema, so a row another process wrote is checked like any input. Fields it does not know
 * are dropped, not refused: during a rolling upgrade a newer node's rows still show.
 */
export const heldRowSchema = z.object({
  id: z.string().regex(/^inst_[A-Za-z0-9_-]{16}$/),
  teamId: text(100).min(1),
  /** The portal node that holds its /start socket; null in a single process. */
  nodeId: text(63).nullable(),
  /** The service's id of the browser (br_…). */
  browserId: text(200),
  startedBy: z.object({ userId: text(200), name: text(500) }),
  keyId: text(200),
  keyName: text(500),
  name: text(10_000),
  startedAt: z.number().int().nonnegative(),
  attached: z.boolean(),
  title: text(5000),
  url: text(10_000),
  viewers: z.array(z.object({ id: text(100), name: text(500), control: z.boolean(), userId: text(200).nullable() })).max(1000),
});

export type HeldRow = z.infer<typeof heldRowSchema>;

/** The row of a browser this process holds. Title and address are cut to the row's bounds. */
export function rowOf(i: TeamBrowser, nodeId: string | null): HeldRow {
  const { title, url } = i.live.page;
  return {
    id: i.id,
    teamId: i.teamId,
    nodeId,
    browserId: i.live.held.id,
    startedBy: { userId: i.startedBy.userId, name: i.startedBy.name },
    keyId: i.keyId,
    keyName: i.keyName,
    name: i.name.slice(0, 10_000),
    startedAt: i.startedAt,
    attached: i.attached,
    title: title.slice(0, 5000),
    url: url.slice(0, 10_000),
    viewers: i.live.control.list().map(({ id, name, control, userId }) => ({ id, name, control, userId })),
  };
}

/** A row read back from another process, or null when it does not hold up. */
export function parseHeldRow(text: string): HeldRow | null {
  try {
    const parsed = heldRowSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
