import type { ReactNode } from 'react';

/**
 * A column heading; `{ hidden }` for one a screen reader needs and the eye does not (a row's
 * actions); `{ label, className }` for one styled apart (`hide-sm`: left out on a phone, whose
 * cells must then carry the same class).
 */
export type Column = string | { hidden: string } | { label: string; className: string };

const keyOf = (c: Column): string => (typeof c === 'string' ? c : 'hidden' in c ? c.hidden : c.label);

/** A data table that scrolls sideways inside its own wrapper on a narrow screen; `children` are its rows. */
export function Table({
  label,
  columns,
  className,
  children,
}: {
  label: string;
  columns: readonly Column[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className ? `${className} table-wrap` : 'table-wrap'}>
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={keyOf(c)} scope="col" className={typeof c === 'object' && 'className' in c ? c.className : undefined}>
                {typeof c === 'string' ? c : 'hidden' in c ? <span className="sr-only">{c.hidden}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
