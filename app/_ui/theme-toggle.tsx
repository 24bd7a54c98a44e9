'use client';
import { useState } from 'react';
import { Select } from './select.tsx';

export type Theme = 'system' | 'light' | 'dark';
const THEMES: readonly string[] = ['system', 'light', 'dark'] satisfies Theme[];

/** Light, dark or follow the system; remembered in a cookie so the server renders the right one. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);

  function choose(next: Theme) {
    setTheme(next);
    document.documentElement.dataset.theme = next;
    document.cookie = `theme=${next}; path=/; max-age=31536000; samesite=lax`;
  }

  return (
    <label className="row" style={{ gap: 'var(--space-2)' }}>
      <span className="sr-only">Theme</span>
      <Select
        className="select"
        style={{ minHeight: '2.1rem', width: 'auto' }}
        aria-label="Theme"
        value={theme}
        onChoose={(chosen) => {
          if (THEMES.includes(chosen)) choose(chosen as Theme);
        }}
      >
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </Select>
    </label>
  );
}
