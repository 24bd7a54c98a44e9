import type { ReactNode } from 'react';

/** A message box; errors are announced at once (role=alert), the rest politely. */
export function Alert({
  tone = 'info',
  children,
  id,
}: {
  tone?: 'info' | 'error' | 'success' | 'warning';
  children: ReactNode;
  id?: string;
}) {
  return (
    <div id={id} className={`alert${tone === 'info' ? '' : ` alert-${tone}`}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
