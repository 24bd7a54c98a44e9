import type { NextAuthOptions } from 'next-auth';
import credentialsModule from 'next-auth/providers/credentials';
import githubModule from 'next-auth/providers/github';
import googleModule from 'next-auth/providers/google';
import type { Provider } from 'next-auth/providers/index';
import type { OAuthProviderConfig } from '../config.ts';
import { signInWithOAuth, signInWithPassword } from './accounts.ts';
import { safeCallback } from './public-paths.ts';
import { userOfSession } from './sessions.ts';
import type { Portal } from '../runtime.ts';

/** Why a session that ended on the server is refused (not an error worth a warning). */
const SESSION_ENDED = 'session ended';

// These are CommonJS modules: Node hands over `module.exports` (the function is on .default),
// a bundler hands over the function itself. Accept both.
const interop = <T extends { default: unknown }>(m: T): T['default'] => ((m as { default?: unknown }).default ?? m) as T['default'];
const CredentialsProvider = interop(credentialsModule);
const GitHubProvider = interop(githubModule);
const GoogleProvider = interop(googleModule);

/** The header the portal's own server sets from the socket (or, with TRUST_PROXY, X-Forwarded-For). */
export const CLIENT_ADDRESS_HEADER = 'x-periscope-client-address';

type OidcClaims = { sub: string; email?: string; email_verified?: boolean; name?: string };

const discovery = new Map<string, Promise<{ userinfo_endpoint?: string }>>();

async function userinfo(issuer: string, accessToken: string | undefined): Promise<Partial<OidcClaims>> {
  if (!accessToken) return {};
  let meta = discovery.get(issuer);
  if (!meta) {
    meta = fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.json() as Promise<{ userinfo_endpoint?: string }>,
    );
    discovery.set(issuer, meta);
    meta.catch(() => discovery.delete(issuer));
  }
  const endpoint = (await meta).userinfo_endpoint;
  if (!endpoint) return {};
  const res = await fetch(endpoint, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(10_000) });
  return res.ok ? ((await res.json()) as Partial<OidcClaims>) : {};
}

function oauthProvider(p: OAuthProviderConfig): Provider {
  switch (p.kind) {
    case 'github':
      return GitHubProvider({ clientId: p.clientId, clientSecret: p.clientSecret });
    case 'google':
      return GoogleProvider({ clientId: p.clientId, clientSecret: p.clientSecret });
    case 'oidc':
      return {
        id: 'oidc',
        name: p.name,
        type: 'oauth',
        wellKnown: `${p.issuer}/.well-known/openid-configuration`,
        authorization: { params: { scope: 'openid email profile' } },
        idToken: true,
        checks: ['pkce', 'state'],
        clientId: p.clientId,
        clientSecret: p.clientSecret,
        // The ID token is verified by next-auth; many providers put email and name only in
        // userinfo (as the OpenID Connect core spec has it for scope-requested claims).
        async profile(claims: OidcClaims, tokens: { access_token?: string }) {
          const merged = claims.email ? claims : { ...(await userinfo(p.issuer, tokens.access_token)), ...claims };
          const userinfoEmail = merged.email && merged.email_verified !== false ? merged.email : null;
          return { id: claims.sub, email: userinfoEmail, name: merged.name ?? null };
        },
      };
  }
}

export type ProviderInfo = { id: string; name: string };

/** The sign-in buttons to show: one per configured OAuth provider. */
export function oauthProviders(portal: Portal): ProviderInfo[] {
  return portal.config.oauth.map((p) => ({ id: p.kind, name: p.kind === 'oidc' ? p.name : p.kind === 'github' ? 'GitHub' : 'Google' }));
}

const header = (headers: Record<string, unknown> | undefined, name: string): string | null => {
  const v = headers?.[name];
  return typeof v === 'string' && v ? v : null;
};

/**
 * next-auth with JWT sessions (required by the Credentials provider). The token carries the user
 * id and session version; every request and socket re-reads the user and checks the version
 * (lib/portal/accounts/sessions.ts), so a session ends everywhere the moment it is revoked.
 */
export function authOptions(portal: Portal): NextAuthOptions {
  const { data, throttle, log } = portal;
  return {
    secret: portal.authSecret,
    session: { strategy: 'jwt', maxAge: 7 * 24 * 3600 },
    pages: { signIn: '/signin', error: '/signin' },
    providers: [
      CredentialsProvider({
        id: 'credentials',
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, req) {
          const address = header(req.headers as Record<string, unknown> | undefined, CLIENT_ADDRESS_HEADER);
          const user = await signInWithPassword(data, throttle, { email: credentials?.email, password: credentials?.password }, address);
          return { id: user.id, email: user.email, name: user.name };
        },
      }),
      ...portal.config.oauth.map(oauthProvider),
    ],
    callbacks: {
      // Where next-auth sends the browser after OAuth and sign-out: only ever the portal itself.
      redirect({ url, baseUrl }) {
        return `${baseUrl}${safeCallback(url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url)}`;
      },
      async signIn({ account, profile, user }) {
        if (!account || account.type === 'credentials') return true;
        try {
          await signInWithOAuth(
            data,
            {
              provider: account.provider,
              providerAccountId: account.providerAccountId,
              email: user.email ?? (profile as { email?: string } | undefined)?.email ?? null,
              name: user.name ?? null,
            },
            { signupEnabled: portal.config.signupEnabled },
          );
          return true;
        } catch (err) {
          return `/signin?error=${encodeURIComponent((err as Error).message)}`;
        }
      },
      async jwt({ token, user, account }) {
        // Only at sign-in: the token keeps the id and the session version it was issued under.
        let uid: string | undefined;
        if (account && account.type !== 'credentials') uid = (await data.userByAccount(account.provider, account.providerAccountId))?.id;
        else if (user) uid = user.id;
        if (uid) {
          const signed = await data.userById(uid);
          if (signed) {
            token.uid = signed.id;
            token.sv = signed.sessionVersion;
          }
        }
        return token;
      },
      async session({ session, token }) {
        // A session that ended on the server (sign-out, new password, an operator) is no session:
        // next-auth answers nothing and clears the cookie instead of renewing it.
        const user = await userOfSession(data, token);
        if (!user) throw new Error(SESSION_ENDED);
        return { ...session, user: { ...session.user, id: user.id } };
      },
    },
    events: {
      // Signing out ends every session of the account, not just this cookie (a copy of it is dead too).
      async signOut({ token }) {
        const user = await userOfSession(data, token);
        if (user) await data.endSessions(user.id);
      },
    },
    logger: {
      error: (code, metadata) => {
        const reason = (metadata as { message?: string } | undefined)?.message;
        if (reason === SESSION_ENDED) return log.debug({ code }, 'ended session refused');
        log.warn({ code, reason }, 'auth error');
      },
      warn: (code) => log.warn({ code }, 'auth warning'),
      debug: () => {},
    },
  };
}
