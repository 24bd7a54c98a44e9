'use client';
import { useState } from 'react';
import { useChoiceBeforeHydration } from './use-choice-before-hydration.ts';

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

  const select = useChoiceBeforeHydration(initial, (shown) => {
    if (THEMES.includes(shown)) choose(shown as Theme);
  });

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
