import type { ButtonHTMLAttributes, ReactNode } from 'react';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'danger-solid' | 'ghost';

type Props = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: 'sm' | 'md';
  busy?: boolean;
  block?: boolean;
  children: ReactNode;
};

export const buttonClass = (variant: ButtonVariant = 'secondary', size: 'sm' | 'md' = 'md', block = false) =>
  ['btn', variant === 'secondary' ? '' : `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', block ? 'btn-block' : '']
    .filter(Boolean)
    .join(' ');

/** The one button. `busy` keeps the label (so its accessible name stays) and shows a spinner. */
export function Button({
  variant = 'secondary',
  size = 'md',
  busy = false,
  block = false,
  type = 'button',
  disabled,
  children,
  ...rest
}: Props) {
  return (
    <button type={type} className={buttonClass(variant, size, block)} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
