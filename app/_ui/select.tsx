'use client';
import type { SelectHTMLAttributes } from 'react';
import { useShownBeforeHydration } from './shown-before-hydration.ts';

type Props = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'defaultValue' | 'onChange'> & {
  value: string;
  /** A value chosen, whether the page had hydrated or not (decision 0115). */
  onChoose: (value: string) => void;
};

/** A controlled select that keeps a choice made before the page hydrated (decision 0115). */
export function Select({ value, onChoose, ...props }: Props) {
  const select = useShownBeforeHydration<HTMLSelectElement>(value, onChoose);
  return <select ref={select} value={value} onChange={(e) => onChoose(e.target.value)} {...props} />;
}
