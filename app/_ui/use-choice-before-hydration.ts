'use client';
import { useEffect, useRef, type RefObject } from 'react';

/**
 * A choice made in a select before the page hydrated (scripts still loading on a slow connection)
 * changes the select but reaches no handler, and hydration leaves a select's value as it finds it:
 * the page would go on with the value it rendered while showing another, and send the rendered one.
 *
 * Give the returned ref to a controlled select. Once the page has hydrated, a value the select
 * shows that differs from `rendered` is passed to `apply`, as its change would have been. A select
 * mounted after hydration shows what it rendered, so nothing happens for it.
 */
export function useChoiceBeforeHydration(rendered: string, apply: (value: string) => void): RefObject<HTMLSelectElement | null> {
  const select = useRef<HTMLSelectElement>(null);
  // Once a mount: effects run twice in development's strict mode, and a choice is applied once.
  const checked = useRef(false);
  const first = useRef({ rendered, apply });
  useEffect(() => {
    if (checked.current) return;
    checked.current = true;
    const shown = select.current?.value;
    if (shown !== undefined && shown !== first.current.rendered) first.current.apply(shown);
  }, []);
  return select;
}
