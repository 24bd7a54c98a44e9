'use client';
import { Link } from '#app/_ui/link.tsx';
import { usePathname } from 'next/navigation.js';

export function TeamTabs({ teamId, showAudit }: { teamId: string; showAudit: boolean }) {
  const path = usePathname();
  const tabs = [
    { href: `/teams/${teamId}/search`, label: 'Search' },
    { href: `/teams/${teamId}/browsers`, label: 'Browsers' },
    { href: `/teams/${teamId}/recordings`, label: 'Recordings' },
    { href: `/teams/${teamId}/profiles`, label: 'Profiles' },
    { href: `/teams/${teamId}/keys`, label: 'API keys' },
    { href: `/teams/${teamId}/members`, label: 'Members' },
    ...(showAudit ? [{ href: `/teams/${teamId}/audit`, label: 'Audit log' }] : []),
    { href: `/teams/${teamId}/settings`, label: 'Settings' },
  ];
  return (
    <nav className="tabs" aria-label="Team">
      {tabs.map((t) => (
        <Link key={t.href} href={t.href} aria-current={path === t.href || path.startsWith(`${t.href}/`) ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
