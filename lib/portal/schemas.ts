import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './crypto/password-rules.ts';

/**
 * Input schemas shared by the forms (inline validation in the browser) and the server routes
 * (the real check). Pure: safe to import from client components.
 */
export const emailSchema = z.string().trim().toLowerCase().max(254, 'That address is too long.').email('Enter a valid email address.');
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`);
export const displayNameSchema = z.string().trim().min(1, 'Enter your name.').max(100, 'Use at most 100 characters.');
export const teamNameSchema = z.string().trim().min(1, 'Enter a team name.').max(60, 'Use at most 60 characters.');
export const keyNameSchema = z.string().trim().min(1, 'Enter a name for the key.').max(100, 'Use at most 100 characters.');
export const roleSchema = z.enum(['owner', 'admin', 'member']);
export const inviteRoleSchema = z.enum(['admin', 'member']);

export const signUpSchema = z.object({ name: displayNameSchema, email: emailSchema, password: passwordSchema });
/** A password typed to confirm a change: never judged by the rules for new ones, only bounded. */
export const currentPasswordSchema = z.string().max(PASSWORD_MAX_LENGTH, 'That is not your password.');
export const profileSchema = z
  .object({ name: displayNameSchema.optional(), email: emailSchema.optional(), currentPassword: currentPasswordSchema.optional() })
  .strict()
  .refine((v) => v.name !== undefined || v.email !== undefined, 'Nothing to change.');
export const passwordChangeSchema = z.object({ currentPassword: currentPasswordSchema.optional(), newPassword: passwordSchema }).strict();
export const deleteAccountSchema = z
  .object({ password: currentPasswordSchema.optional(), confirmEmail: z.string().max(254).optional() })
  .strict();
export const resetTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'That reset link is not valid.');
export const resetPasswordSchema = z.object({ token: resetTokenSchema, password: passwordSchema }).strict();
export const createTeamSchema = z.object({ name: teamNameSchema });
export const renameTeamSchema = z.object({ name: teamNameSchema });
export const teamRecordingSchema = z.object({ record: z.boolean() }).strict();
export const createInviteSchema = z.object({ role: inviteRoleSchema });
export const changeRoleSchema = z.object({ role: roleSchema });
export const currentTeamSchema = z.object({ teamId: z.string().min(1).max(100) });
export const newKeySchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('create'), name: keyNameSchema }),
  z.object({
    mode: z.literal('add'),
    name: keyNameSchema,
    key: z
      .string()
      .trim()
      .min(16, 'That does not look like an API key.')
      .max(512, 'That key is too long.')
      .regex(/^[\x21-\x7e]+$/, 'An API key has no spaces or special characters.'),
  }),
]);
export const updateKeySchema = z
  .object({ name: keyNameSchema.optional(), default: z.literal(true).optional() })
  .refine((v) => v.name !== undefined || v.default !== undefined, 'Nothing to change.');

// The forms' own shapes: the fields a form shows, each checked by the same rule the server applies.
export const signInFormSchema = z.object({ email: emailSchema, password: z.string().min(1, 'Enter your password.') });
export const renameKeyFormSchema = z.object({ name: keyNameSchema });
export const profileFormSchema = z.object({ name: displayNameSchema, email: emailSchema, currentPassword: currentPasswordSchema });
export const passwordFormSchema = z.object({ currentPassword: currentPasswordSchema, newPassword: passwordSchema });
export const resetFormSchema = z.object({ password: passwordSchema });

/** First message per field, for inline form errors. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    out[field] ??= issue.message;
  }
  return out;
}

/** The service's rule for a profile's name (docs/api.md, section 7), in words. */
/** The same rule as the service's PROFILE_NAME_RE (lib/shared/protocol/start.ts), kept here so that the form can check it. */
export const PROFILE_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const PROFILE_NAME_RULE = 'A profile name is 1 to 64 letters, digits, dots, dashes or underscores.';
export const browserNameSchema = z.string().trim().min(1, 'Give it a name.').max(80, 'Use at most 80 characters.');
/** The lifetimes the start form offers, in seconds; none chosen is the service's longest (BROWSER_MAX_LIFETIME_SECONDS). */
export const LIFETIME_CHOICES = [
  { seconds: 300, label: '5 minutes' },
  { seconds: 1800, label: '30 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 6 * 3600, label: '6 hours' },
] as const;
/** The name a browser is saved under when stopped (`DELETE /v0/browsers/{id}?saveAs=`). */
export const saveAsProfileSchema = z.object({ name: z.string().trim().regex(PROFILE_NAME_RE, PROFILE_NAME_RULE) }).strict();
export const startBrowserSchema = z
  .object({
    name: z.string().trim().max(80, 'Use at most 80 characters.').optional(),
    keyId: z.string().min(1).max(64).optional(),
    /** This browser's lifetime (`/start?timeout=`); the service refuses one past its own longest. */
    lifetimeSeconds: z
      .number()
      .int('Give whole seconds.')
      .min(1, 'A browser lives at least a second.')
      .max(7 * 24 * 3600, 'A browser lives at most 7 days.')
      .optional(),
    /** One of the team's stored proxies, by id; absent or null: none. */
    proxyId: z.string().min(1).max(64).nullable().optional(),
    /** One of the key's saved profiles by name (`/start?profile=`), the service's own rule; a new name starts empty. */
    profile: z.string().regex(PROFILE_NAME_RE, PROFILE_NAME_RULE).optional(),
    /** Save the browser's state back into `profile` when it ends (`persist=1`). */
    persist: z.boolean().optional(),
  })
  .strict()
  .refine((s) => !s.persist || s.profile !== undefined, { path: ['persist'], message: 'Name the profile to save into.' });

/** The schemes an upstream proxy may have (docs/api.md, `X-Browser-Proxy`), and the port each has when none is given. */
export const PROXY_SCHEMES = { http: 80, https: 443, socks5: 1080 } as const;
export type ProxyScheme = keyof typeof PROXY_SCHEMES;
/** A proxy's address read apart: `url` is what /start carries, the rest what may be shown. */
export type ProxyAddress = { url: string; scheme: ProxyScheme; host: string; port: number; hasCredentials: boolean };

/** Read a proxy's address, `scheme://[user[:password]@]host[:port]`; a sentence saying what is wrong when it is not one. */
export function parseProxyAddress(text: string): ProxyAddress | string {
  if (!/^[\x21-\x7e]+$/.test(text)) return 'Write the address without spaces or special characters (percent-encode them in a password).';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'That is not an address: write it as http://user:password@host:port.';
  }
  const scheme = url.protocol.slice(0, -1);
  if (!Object.hasOwn(PROXY_SCHEMES, scheme)) return 'A proxy address starts with http://, https:// or socks5://.';
  if (!url.hostname) return "Name the proxy's host, e.g. http://proxy.example.com:8080.";
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    return 'A proxy address has no path, query or fragment after the port.';
  if (url.password && !url.username) return 'Give a user name with the password.';
  const port = url.port ? Number(url.port) : PROXY_SCHEMES[scheme as ProxyScheme];
  const credentials = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return {
    url: `${scheme}://${credentials}${url.hostname}:${port}`,
    scheme: scheme as ProxyScheme,
    host: url.hostname,
    port,
    hasCredentials: Boolean(url.username),
  };
}

export const proxyNameSchema = z.string().trim().min(1, 'Give the proxy a name.').max(60, 'Use at most 60 characters.');
export const proxyUrlSchema = z
  .string()
  .trim()
  .min(1, "Enter the proxy's address.")
  .max(2048, 'That address is too long.')
  .transform((text, ctx) => {
    const parsed = parseProxyAddress(text);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: parsed });
      return z.NEVER;
    }
    return parsed;
  });
export const newProxySchema = z.object({ name: proxyNameSchema, url: proxyUrlSchema }).strict();
/** A shared link to a live browser: what it lets its holder do, for how long, and a name to tell it by. */
export const createLiveLinkSchema = z
  .object({
    mode: z.enum(['watch', 'control']).default('watch'),
    minutes: z
      .number()
      .int('Give whole minutes.')
      .min(5, 'A link lasts at least 5 minutes.')
      .max(7 * 24 * 60, 'A link lasts at most 7 days.')
      .default(60),
    label: z.string().trim().max(60, 'Use at most 60 characters.').optional(),
  })
  .strict();
export const renameBrowserSchema = z.object({ name: browserNameSchema }).strict();
