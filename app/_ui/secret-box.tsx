import { CopyButton } from './copy-button.tsx';

/** A value shown once (a key, a link), with its copy button. */
export function SecretBox({ value, label, copyLabel, testId }: { value: string; label: string; copyLabel: string; testId?: string }) {
  return (
    <div className="secret-box">
      <code data-testid={testId} aria-label={label}>
        {value}
      </code>
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}
