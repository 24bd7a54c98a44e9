import { Link } from '../_ui/link.tsx';
import type { PublicUser } from '#portal/accounts/accounts.ts';
import { ThemeToggle, type Theme } from '../_ui/theme-toggle.tsx';
import { SignOutButton } from './sign-out-button.tsx';
import { TeamSwitcher, type TeamOption } from './team-switcher.tsx';

export function TopBar({
  user,
  teams,
  currentTeamId,
  theme,
}: {
  user: PublicUser;
  teams: TeamOption[];
  currentTeamId: string | null;
  theme: Theme;
}) {
  return (
    <header className="topbar">
      <nav className="topbar-inner" aria-label="Main">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden="true" /> <span className="hide-sm">Periscope</span>
        </Link>
        {currentTeamId && <TeamSwitcher teams={teams} currentTeamId={currentTeamId} />}
        <Link href="/teams/new" className="btn btn-ghost btn-sm">
          New team
        </Link>
        <span className="grow" />
        <ThemeToggle initial={theme} />
        <Link href="/account" className="user-chip" aria-label={`Your account: ${user.email}`} title="Your account">
          <span className="hide-sm">{user.email}</span>
          <span className="show-sm">Account</span>
        </Link>
        <SignOutButton />
      </nav>
    </header>
  );
}
