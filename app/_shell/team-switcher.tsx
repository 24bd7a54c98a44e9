'use client';
import { useParams, useRouter } from 'next/navigation.js';
import { useState } from 'react';
import { api } from '../_lib/client-api.ts';
import { Select } from '../_ui/select.tsx';

export type TeamOption = { id: string; name: string; personal: boolean };

/** The current team: the one in the address when on a team page, else the remembered one. */
export function TeamSwitcher({ teams, currentTeamId }: { teams: TeamOption[]; currentTeamId: string }) {
  const params = useParams<{ teamId?: string }>();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const shown = params.teamId && teams.some((t) => t.id === params.teamId) ? params.teamId : currentTeamId;
  const choose = (teamId: string) => {
    setError(null);
    api('PUT', '/api/me/current-team', { teamId }).then(
      () => {
        router.push(`/teams/${teamId}/keys`);
        router.refresh();
      },
      (err: Error) => setError(err.message),
    );
  };
  return (
    <div className="team-switcher">
      <label htmlFor="team-switcher" className="sr-only">
        Current team
      </label>
      <Select
        id="team-switcher"
        className="select"
        value={shown}
        aria-describedby={error ? 'team-switcher-error' : undefined}
        onChoose={choose}
      >
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
            {t.personal ? ' (personal)' : ''}
          </option>
        ))}
      </Select>
      {error && (
        <span id="team-switcher-error" role="alert" className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}
