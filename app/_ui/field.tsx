import { Input, type InputProps } from './input.tsx';

type Props = InputProps & { id: string; label: string; error?: string | undefined; hint?: string | undefined };

/** A labelled input with its hint and inline error wired to it for assistive technology. */
export function Field({ id, label, error, hint, ...input }: Props) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <Input id={id} className="input" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint && (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}
