'use client';
import type { InputHTMLAttributes, Ref } from 'react';
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
  return (
    <input
      ref={(el) => {
        input.current = el;
        if (typeof inputRef === 'function') inputRef(el);
        else if (inputRef) inputRef.current = el;
      }}
      value={value}
      onChange={(e) => onType(e.target.value)}
      {...props}
    />
  );
}
