import type { ReactNode } from 'react';
import { currentTeam, listTeams } from '#portal/teams/teams.ts';
import { requireSignedIn } from '../_lib/page-guard.ts';
import { themeOf } from '../_lib/theme.ts';
import { TopBar } from '../_shell/top-bar.tsx';

/** The signed-in shell: header with the team switcher, theme and account. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const { portal, user, actor } = await requireSignedIn();
  const [teams, current] = await Promise.all([listTeams(portal.data, actor), currentTeam(portal.data, actor)]);
  return (
    <>
      <TopBar
        user={user}
        teams={teams.map((t) => ({ id: t.id, name: t.name, personal: t.personal }))}
        currentTeamId={current?.id ?? null}
        theme={await themeOf()}
      />
      <main id="main" className="page">
        {children}
      </main>
    </>
  );
}
