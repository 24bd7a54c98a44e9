'use client';
import { useCallback, type InputHTMLAttributes, type Ref } from 'react';
import { useShownBeforeHydration } from './shown-before-hydration.ts';

export type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'defaultValue' | 'onChange'> & {
  value: string;
  /** The text now in the box, typed or filled in, whether the page had hydrated or not (decision 0116). */
  onType: (value: string) => void;
  /** The element, for a page that moves the focus to it. */
  inputRef?: Ref<HTMLInputElement>;
};

/** A controlled text input that keeps what was typed or filled in before the page hydrated (decision 0116). */
export function Input({ value, onType, inputRef, ...props }: InputProps) {
  const input = useShownBeforeHydration<HTMLInputElement>(value, onType);
  // One callback while `inputRef` stays the same, so the element is not detached at every render.
  const ref = useCallback(
    (el: HTMLInputElement | null) => {
      input.current = el;
      if (typeof inputRef === 'function') inputRef(el);
      else if (inputRef) inputRef.current = el;
    },
    [input, inputRef],
  );
  return <input ref={ref} value={value} onChange={(e) => onType(e.target.value)} {...props} />;
}
