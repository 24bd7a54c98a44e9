import type { ReactNode } from 'react';

/** A column heading; `{ hidden }` for one a screen reader needs and the eye does not (a row's actions). */
export type Column = string | { hidden: string };

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
              <th key={typeof c === 'string' ? c : c.hidden} scope="col">
                {typeof c === 'string' ? c : <span className="sr-only">{c.hidden}</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
