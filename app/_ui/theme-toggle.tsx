'use client';
import { useState } from 'react';

export type Theme = 'system' | 'light' | 'dark';

/** Light, dark or follow the system; remembered in a cookie so the server renders the right one. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  return (
    <label className="row" style={{ gap: 'var(--space-2)' }}>
      <span className="sr-only">Theme</span>
      <select
        className="select"
        style={{ minHeight: '2.1rem', width: 'auto' }}
        aria-label="Theme"
        value={theme}
        onChange={(e) => {
          const next = e.target.value as Theme;
          setTheme(next);
          document.documentElement.dataset.theme = next;
          document.cookie = `theme=${next}; path=/; max-age=31536000; samesite=lax`;
        }}
      >
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
