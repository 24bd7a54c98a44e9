'use client';
import { useEffect, useState, type RefObject } from 'react';

const editable = (t: EventTarget | null) => {
  const el = t as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)));
};

/**
 * The search page's keys: `/` focuses the search box; ↓ or j and ↑ or k move the focus through
 * the results (↓ from the box enters them, ↑ from the first goes back); Escape returns to the
 * box. Focus sits on the result's link, so Enter opens it as any link does.
 */
export function useResultKeys({
  inputRef,
  listRef,
  count,
  resetOn,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  listRef: RefObject<HTMLOListElement | null>;
  count: number;
  resetOn: unknown;
}): { active: number } {
  const [active, setActive] = useState(-1);
  useEffect(() => setActive(-1), [resetOn]);
  useEffect(() => {
    const focusResult = (i: number) => {
      const link = listRef.current?.querySelector<HTMLAnchorElement>(`[data-result-index="${i}"]`);
      if (!link) return;
      link.focus();
      link.scrollIntoView({ block: 'nearest' });
      setActive(i);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const input = inputRef.current;
      const inBox = e.target === input;
      const inList = Boolean(listRef.current && e.target instanceof Node && listRef.current.contains(e.target));
      const current = inList ? Number((e.target as HTMLElement).dataset.resultIndex ?? active) : -1;
      if (e.key === '/' && !editable(e.target)) {
        e.preventDefault();
        input?.focus();
        input?.select();
        return;
      }
      if (!count) return;
      const down = e.key === 'ArrowDown' || (e.key === 'j' && !editable(e.target));
      const up = e.key === 'ArrowUp' || (e.key === 'k' && !editable(e.target));
      if (inBox && e.key === 'ArrowDown') {
        e.preventDefault();
        focusResult(0);
      } else if ((inList || !editable(e.target)) && down) {
        e.preventDefault();
        focusResult(Math.min(count - 1, current + 1));
      } else if ((inList || !editable(e.target)) && up) {
        e.preventDefault();
        if (current <= 0) {
          input?.focus();
          setActive(-1);
        } else focusResult(current - 1);
      } else if (inList && e.key === 'Escape') {
        input?.focus();
        setActive(-1);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inputRef, listRef, count, active]);
  return { active };
}
