import type { InstanceRecord } from '../data/portal-data.ts';
import type { EndedInstanceView } from '../protocol/dashboard.ts';
import type { KeyBrowserOfTeam } from './key-browsers.ts';

/** A script's browser with neither a title nor an address is named by a piece of its id, as the live view names it. */
export const scriptBrowserName = (b: { id: string; title: string; url: string }): string =>
  b.title || b.url || `Script's browser ${b.id.slice(3, 9)}`;

/**
 * The dashboard's "Ended in the last day": the browsers the portal started (its own history, with
 * the names people gave them) and those that scripts started with the team's keys (the service's
 * list of each key's browsers), newest end first, each browser once. A browser is the same on both
 * sides when the history names its service id (`browserId`): the portal's record wins, since it
 * knows the name and who started it. A browser the portal still holds (`held`, by service id) has
 * not ended for the team, whatever the service's list says a moment after its end.
 */
export function endedBrowsers(
  history: readonly InstanceRecord[],
  keyBrowsers: readonly KeyBrowserOfTeam[],
  opts: { since: number; limit: number; held?: ReadonlySet<string> },
): EndedInstanceView[] {
  const ours: EndedInstanceView[] = history
    .filter((h) => h.endedAt >= opts.since)
    .map((h) => ({
      id: h.id,
      browserId: h.browserId,
      name: h.name,
      startedByName: h.startedByName,
      keyName: h.keyName,
      startedAt: h.startedAt,
      endedAt: h.endedAt,
      reason: h.reason,
      message: h.message,
      script: false,
      url: '',
    }));
  const scripts: EndedInstanceView[] = keyBrowsers
    .filter((b) => !b.live && b.endedAt !== null && b.endedAt >= opts.since && !opts.held?.has(b.id))
    .map((b) => ({
      id: b.id,
      browserId: b.id,
      name: scriptBrowserName(b),
      startedByName: '',
      keyName: b.keyName,
      startedAt: b.startedAt,
      endedAt: b.endedAt!,
      reason: b.endReason ?? '',
      message: '',
      script: true,
      url: b.url,
    }));
  // The portal's records come first, so theirs is the one kept; a script's browser can also be
  // listed twice when the team holds one service key under two names.
  const seen = new Set<string>();
  return [...ours, ...scripts]
    .filter((v) => {
      const key = v.browserId ?? v.id;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => b.endedAt - a.endedAt)
    .slice(0, opts.limit);
}
