'use client';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { TeamProfiles } from '#portal/keys/profiles.ts';
import { api } from '#app/_lib/client-api.ts';
import { Field } from '#app/_ui/field.tsx';

/** How long the names read for the field are offered before a new focus reads them again. */
const FRESH_MS = 30_000;

/**
 * The start form's optional profile: a name typed, or chosen from the chosen key's saved profiles
 * (decision 0110). The names are read only once the field is first focused, through the Profiles
 * page's route (GET /api/teams/:id/profiles), so that loading the browsers page asks the service
 * nothing about profiles. A key the service will not answer for, or a failed read, offers none.
 */
export function ProfileField({
  teamId,
  keyId,
  value,
  error,
  onChange,
}: {
  teamId: string;
  keyId: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const [wanted, setWanted] = useState(false);
  const url = `/api/teams/${teamId}/profiles`;
  const saved = useQuery({ queryKey: [url], queryFn: () => api<TeamProfiles>('GET', url), enabled: wanted, staleTime: FRESH_MS });
  const offered = (saved.data?.profiles ?? []).filter((p) => p.keyId === keyId);
  return (
    <>
      <Field
        id="browser-profile"
        label="Profile (optional)"
        value={value}
        maxLength={64}
        placeholder="Starts empty"
        list="browser-profiles"
        error={error}
        onFocus={() => setWanted(true)}
        onType={(value) => onChange(value)}
      />
      <datalist id="browser-profiles">
        {offered.map((p) => (
          <option key={p.name} value={p.name}>
            {p.inUse ? 'in use' : ''}
          </option>
        ))}
      </datalist>
    </>
  );
}
