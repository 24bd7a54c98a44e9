'use client';
import { useEffect, useState } from 'react';

/** The current time, re-read every `everyMs` while `active` (for countdowns). */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [active, everyMs]);
  return now;
}

export const secondsLeft = (receivedAt: number, seconds: number, now: number) =>
  Math.max(0, Math.ceil((receivedAt + seconds * 1000 - now) / 1000));

export function formatSeconds(s: number): string {
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(s % 60).padStart(2, '0')} s`;
}
