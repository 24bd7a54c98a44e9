import type { ReactNode } from 'react';

export function AuthShell({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer: ReactNode;
}) {
  return (
    <main id="main" className="auth">
      <div className="card auth-card">
        <div className="card-body">
          <div className="auth-head">
            <span className="brand">
              <span className="brand-mark" aria-hidden="true" /> Periscope
            </span>
            <h1>{title}</h1>
            <p className="muted">{subtitle}</p>
          </div>
          {children}
          <p className="auth-foot">{footer}</p>
        </div>
      </div>
    </main>
  );
}
