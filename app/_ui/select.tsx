'use client';
import { useEffect, useRef, type SelectHTMLAttributes } from 'react';

type Props = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'defaultValue' | 'onChange'> & {
  value: string;
  /** A value chosen, whether the page had hydrated or not (decision 0115). */
  onChoose: (value: string) => void;
};

/**
 * A controlled select that keeps a choice made before the page hydrated (decision 0115). On a
 * slow connection the server's HTML is usable before the scripts run: a select changed then
 * changes on screen but reaches no handler, and hydration leaves its value as it finds it, so the
 * page would go on with the value it rendered while showing another. Once hydrated, a value shown
 * that differs from the one rendered goes to `onChoose`, as the change would have. A select mounted
 * after hydration shows what it rendered, so nothing happens for it; development's strict mode,
 * which runs effects twice, applies a choice once.
 */
export function Select({ value, onChoose, ...props }: Props) {
  const select = useRef<HTMLSelectElement>(null);
  const checked = useRef(false);
  const first = useRef({ value, onChoose });
  useEffect(() => {
    if (checked.current) return;
    checked.current = true;
    const shown = select.current?.value;
    if (shown !== undefined && shown !== first.current.value) first.current.onChoose(shown);
  }, []);
  return <select ref={select} value={value} onChange={(e) => onChoose(e.target.value)} {...props} />;
}
