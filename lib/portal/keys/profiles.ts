import { z } from 'zod';
import { Conflict, DomainError, NotFound } from '../errors.ts';
import { deleteKeyProfile, listKeyProfiles, PROFILE_NAME, type KeyProfile } from '../service-client/key-browsers.ts';
import { requireRole, type Actor } from '../teams/access.ts';
import { parseOrThrow } from '../validation.ts';
import { eachTeamKey, withTeamKey, type Vault } from './vault.ts';

/** A saved browser profile of one of the team's keys (docs/api.md, section 7), with the key it belongs to. */
export type TeamProfile = KeyProfile & { keyId: string; keyName: string };
/** The team's profiles, and the keys the service would not answer for (revoked there, or unreachable). */
export type TeamProfiles = { profiles: TeamProfile[]; unread: string[] };

type Deps = { vault: Vault; serviceUrl: string };

/** Which profile to delete: the team key it belongs to and its name, as the route's path gives them. */
export const deleteProfileSchema = z
  .object({
    keyId: z.string().min(1, 'Name the key.').max(100, 'That is not a key of this team.'),
    name: z.string().regex(PROFILE_NAME, 'A profile name is 1 to 64 letters, digits, dots, dashes or underscores.'),
  })
  .strict();

/**
 * Every saved profile of the team's live keys, read from the service with each key (a profile
 * belongs to the key that saved it, decision 0106): a member sees them all, and nothing of another
 * team's keys. A key the service refuses or cannot answer for is named in `unread` rather than
 * failing the whole list; the list is sorted by key name, then profile name.
 */
export async function teamProfiles(d: Deps, actor: Actor, teamId: string): Promise<TeamProfiles> {
  const perKey = await eachTeamKey(d.vault, actor, teamId, async (key, token) => {
    try {
      const listed = await listKeyProfiles(d.serviceUrl, token);
      return listed ? { key, profiles: listed } : { key, profiles: null };
    } catch (err) {
      if (err instanceof DomainError) return { key, profiles: null };
      throw err;
    }
  });
  const profiles = perKey
    .flatMap(({ key, profiles }) => (profiles ?? []).map((p) => ({ ...p, keyId: key.id, keyName: key.name })))
    .sort((a, b) => a.keyName.localeCompare(b.keyName) || a.name.localeCompare(b.name));
  return { profiles, unread: perKey.filter((k) => k.profiles === null).map((k) => k.key.name) };
}

/**
 * Delete one saved profile of a team key. Owners and admins only, as every other change to what a
 * key holds (revoking it, stopping a script's browser): the scripts that start from the profile
 * start empty afterwards. The service's answers become the portal's errors in words: 404 when
 * the key has no such profile (or the key is not this team's), 409 while a persisting browser
 * holds it. Recorded in the team's audit log.
 */
export async function deleteTeamProfile(d: Deps, actor: Actor, teamId: string, input: unknown): Promise<void> {
  await requireRole(d.vault.data, actor, teamId, 'admin');
  const { keyId, name } = parseOrThrow(deleteProfileSchema, input);
  const key = (await d.vault.data.keys(teamId)).find((k) => k.id === keyId);
  if (!key) throw new NotFound('no such key in this team');
  const outcome = await withTeamKey(d.vault, actor, teamId, keyId, 'browser', (token) => deleteKeyProfile(d.serviceUrl, token, name));
  if (outcome === 'not-found') throw new NotFound(`The key "${key.name}" has no profile "${name}": it was deleted already.`);
  if (outcome === 'in-use')
    throw new Conflict(`The profile "${name}" is in use: a browser that saves into it is running. Stop that browser, then delete it.`);
  if (outcome === 'key-refused')
    throw new DomainError('key_refused', `The browser service refused the key "${key.name}" (revoked there?).`);
  await d.vault.data.audit(
    { teamId, actorId: actor.userId, action: 'profile.deleted', subject: name, detail: { key: key.name, keyId } },
    Date.now(),
  );
}
