'use client';
import { useEffect, useRef, useState } from 'react';

export type Theme = 'system' | 'light' | 'dark';

/** Light, dark or follow the system; remembered in a cookie so the server renders the right one. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  const select = useRef<HTMLSelectElement>(null);

  function choose(next: Theme) {
    setTheme(next);
    document.documentElement.dataset.theme = next;
    document.cookie = `theme=${next}; path=/; max-age=31536000; samesite=lax`;
  }

  // A choice made before the page hydrated changed the select but reached no handler, and
  // hydration leaves a select's value as it finds it: apply that choice now rather than lose it.
  useEffect(() => {
    const shown = select.current?.value;
    if (shown === 'system' || shown === 'light' || shown === 'dark') {
      if (shown !== initial) choose(shown);
    }
  }, [initial]);

  return (
    <label className="row" style={{ gap: 'var(--space-2)' }}>
      <span className="sr-only">Theme</span>
      <select
        ref={select}
        className="select"
        style={{ minHeight: '2.1rem', width: 'auto' }}
        aria-label="Theme"
        value={theme}
        onChange={(e) => choose(e.target.value as Theme)}
      >
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
