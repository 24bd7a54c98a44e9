import type { SecretBox } from '../crypto/secretbox.ts';
import type { PortalData, SealedRow, TeamKey } from '../data/portal-data.ts';
import type { KeyUseLog } from '../teams/audit.ts';
import { requireRole, type Actor } from '../teams/access.ts';
import { BadRequest, NotFound } from '../errors.ts';
import { newId } from '../data/ids.ts';
import type { KeyIssuer } from './issuer.ts';
import { newKeySchema, updateKeySchema } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';

/** What pages and API responses may carry about a key: never the key itself. */
export type KeyView = {
  id: string;
  name: string;
  source: TeamKey['source'];
  hint: string;
  isDefault: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
};

export type Vault = { data: PortalData; box: SecretBox; issuer: KeyIssuer; keyUse: KeyUseLog };

const associated = (keyId: string) => `team_key:${keyId}`;
/** What a sealed proxy address is bound to: its row, as a key's is to its own. */
export const proxyAssociated = (proxyId: string) => `team_proxy:${proxyId}`;
const boundTo = (row: SealedRow) => (row.kind === 'key' ? associated(row.id) : proxyAssociated(row.id));

/** The masked form: a short prefix and the last four characters. */
export function maskKey(token: string): { prefix: string; last4: string } {
  return { prefix: token.slice(0, Math.min(8, Math.floor(token.length / 4))), last4: token.slice(-4) };
}

async function view(v: Vault, k: TeamKey): Promise<KeyView> {
  const serviceSeen = k.serviceKeyId && !k.revokedAt ? await v.issuer.lastUsed(k.serviceKeyId) : null;
  const lastUsedAt = Math.max(k.lastUsedAt ?? 0, serviceSeen ?? 0) || null;
  return {
    id: k.id,
    name: k.name,
    source: k.source,
    hint: `${k.hintPrefix}…${k.hintLast4}`,
    isDefault: k.isDefault,
    createdAt: k.createdAt,
    lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

export async function listKeys(v: Vault, actor: Actor, teamId: string): Promise<KeyView[]> {
  await requireRole(v.data, actor, teamId, 'member');
  return Promise.all((await v.data.keys(teamId)).map((k) => view(v, k)));
}

/**
 * "Create key" (issued by the service through its operator interface) or "Add existing key" (issued elsewhere). The
 * returned token is the one time the full key leaves the server.
 */
export async function addKey(v: Vault, actor: Actor, teamId: string, input: unknown): Promise<{ key: KeyView; token: string }> {
  await requireRole(v.data, actor, teamId, 'admin');
  const parsed = parseOrThrow(newKeySchema, input);
  if (parsed.mode === 'create' && !v.issuer.available) {
    throw new BadRequest(
      'This portal has no operator token for the service (SERVICE_OPERATOR_TOKEN), so it cannot issue keys. Add a key that the service issued instead.',
    );
  }
  const id = newId('key');
  const recording = Boolean((await v.data.team(teamId))?.recordSessions);
  const issued =
    parsed.mode === 'create' ? await v.issuer.issue(`${parsed.name} (team ${teamId})`.slice(0, 100), { record: recording }) : null;
  const token = issued ? issued.token : (parsed as { key: string }).key;
  const { prefix, last4 } = maskKey(token);
  const key: TeamKey = {
    id,
    teamId,
    name: parsed.name,
    source: issued ? 'issued' : 'external',
    serviceKeyId: issued?.serviceKeyId ?? null,
    hintPrefix: prefix,
    hintLast4: last4,
    sealed: v.box.seal(token, associated(id)),
    isDefault: false,
    createdBy: actor.userId,
    createdAt: Date.now(),
    lastUsedAt: null,
    revokedAt: null,
  };
  try {
    await v.data.insertKey(key, {
      teamId,
      actorId: actor.userId,
      action: issued ? 'key.created' : 'key.added',
      subject: key.name,
      detail: { key: id, hint: `${prefix}…${last4}` },
    });
  } catch (err) {
    if (issued) await v.issuer.revoke(issued.serviceKeyId).catch(() => {}); // the vault's error is the one to report
    throw err;
  }
  const stored = await v.data.key(teamId, id);
  return { key: await view(v, stored ?? key), token };
}

async function keyOf(v: Vault, teamId: string, keyId: string): Promise<TeamKey> {
  const key = await v.data.key(teamId, keyId);
  if (!key) throw new NotFound('no such key in this team');
  return key;
}

export async function updateKey(v: Vault, actor: Actor, teamId: string, keyId: string, input: unknown): Promise<KeyView> {
  await requireRole(v.data, actor, teamId, 'admin');
  const change = parseOrThrow(updateKeySchema, input);
  const key = await keyOf(v, teamId, keyId);
  if (change.name !== undefined && change.name !== key.name) {
    await v.data.renameKey(teamId, keyId, change.name, {
      teamId,
      actorId: actor.userId,
      action: 'key.renamed',
      subject: change.name,
      detail: { key: keyId, from: key.name },
    });
  }
  if (change.default) {
    if (key.revokedAt !== null) throw new BadRequest('A revoked key cannot be the default.');
    await v.data.setDefaultKey(teamId, keyId, {
      teamId,
      actorId: actor.userId,
      action: 'key.default_set',
      subject: change.name ?? key.name,
      detail: { key: keyId },
    });
  }
  return await view(v, await keyOf(v, teamId, keyId));
}

/** Revoke in the vault and, for a key this portal issued, at the service too. */
export async function revokeKey(v: Vault, actor: Actor, teamId: string, keyId: string): Promise<KeyView> {
  await requireRole(v.data, actor, teamId, 'admin');
  const key = await keyOf(v, teamId, keyId);
  if (key.revokedAt === null) {
    if (key.serviceKeyId && v.issuer.available) await v.issuer.revoke(key.serviceKeyId);
    await v.data.revokeKey(teamId, keyId, Date.now(), {
      teamId,
      actorId: actor.userId,
      action: 'key.revoked',
      subject: key.name,
      detail: { key: keyId, atService: Boolean(key.serviceKeyId && v.issuer.available) },
    });
  }
  return await view(v, await keyOf(v, teamId, keyId));
}

/**
 * Server-side use of a team's key on behalf of a member (the portal's own calls to the
 * service). The plaintext stays inside `use`; the key's last-used time and the use (who, what
 * for) are recorded.
 */
export async function withTeamKey<T>(
  v: Vault,
  actor: Actor,
  teamId: string,
  keyId: string | null,
  purpose: 'search' | 'browser' | 'check',
  use: (token: string) => Promise<T>,
): Promise<T> {
  await requireRole(v.data, actor, teamId, 'member');
  const keys = await v.data.keys(teamId);
  const key = keyId ? keys.find((k) => k.id === keyId) : keys.find((k) => k.isDefault);
  if (!key) throw new NotFound(keyId ? 'no such key in this team' : 'this team has no default key yet');
  if (key.revokedAt !== null) throw new BadRequest('That key is revoked.');
  const token = v.box.open(key.sealed, associated(key.id));
  await v.data.touchKey(key.id, Date.now());
  await v.keyUse.used({ teamId, actorId: actor.userId, keyId: key.id, keyName: key.name, purpose });
  return use(token);
}

/**
 * Read-only use of every live key of a team, on behalf of a member who looks (the dashboard's list
 * of browsers started with the team's keys). The use is recorded like any other (purpose `check`,
 * once per person, key and window); the keys' last-used time is left alone, since looking is not
 * using the key for work.
 */
export async function eachTeamKey<T>(
  v: Vault,
  actor: Actor,
  teamId: string,
  use: (key: { id: string; name: string }, token: string) => Promise<T>,
): Promise<T[]> {
  await requireRole(v.data, actor, teamId, 'member');
  const keys = (await v.data.keys(teamId)).filter((k) => k.revokedAt === null);
  return Promise.all(
    keys.map(async (key) => {
      await v.keyUse.used({ teamId, actorId: actor.userId, keyId: key.id, keyName: key.name, purpose: 'check' });
      return use({ id: key.id, name: key.name }, v.box.open(key.sealed, associated(key.id)));
    }),
  );
}

/** Re-encrypt every stored secret (API keys, proxy addresses) with the box's current secret. Returns how many were re-sealed. */
export async function resealAll(data: PortalData, from: SecretBox, to: SecretBox): Promise<number> {
  const rows = await data.allSealed();
  const resealed = rows.map((r) => ({ ...r, sealed: to.seal(from.open(r.sealed, boundTo(r)), boundTo(r)) }));
  await data.replaceSealed(resealed);
  return resealed.length;
}
