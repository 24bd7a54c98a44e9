import { deleteAccount, updateProfile } from '#portal/accounts/accounts.ts';
import { currentTeam, listTeams } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';
import { stopTeamBrowsers } from '#portal/live/browsers.ts';

export const GET = route(async ({ portal, user, actor }) => ({
  user,
  teams: await listTeams(portal.data, actor),
  currentTeamId: (await currentTeam(portal.data, actor))?.id ?? null,
}));

/** Change your name or email (`{name?, email?, currentPassword?}`). */
export const PATCH = route(async ({ portal, actor, body, address }) => ({
  user: await updateProfile(portal, actor, await body(), address),
}));

/** Delete your account (`{password}`, or `{confirmEmail}` for an account without one). */
export const DELETE = route(async ({ portal, actor, body, address }) =>
  deleteAccount(
    {
      data: portal.data,
      throttle: portal.throttle,
      issuer: portal.vault.issuer,
      stopBrowsers: (teamIds) => void stopTeamBrowsers(portal, teamIds, { reason: 'stopped', message: 'the team was deleted' }),
    },
    actor,
    await body(),
    address,
  ),
);
