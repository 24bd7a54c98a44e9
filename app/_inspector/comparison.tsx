'use client';
import { useState } from 'react';
import { clipAddress } from '#app/_lib/address.ts';
import { clock } from './timeline.ts';
import type { Comparison, Step } from './compare.ts';
import './inspector.css';

export type Run = { id: string; label: string };

/**
 * Two recorded runs side by side (issue #14, item 5): their page loads lined up, opened at the
 * first one where they part, each side showing the screen that page settled on and what went
 * wrong there; any other step can be chosen, and each side opens in the inspector at that moment.
 */
export function ComparisonView({ teamId, runs, comparison }: { teamId: string; runs: [Run, Run]; comparison: Comparison }) {
  const { pairs, firstDifference } = comparison;
  const [chosen, setChosen] = useState(firstDifference ?? Math.max(0, pairs.length - 1));
  const pair = pairs[chosen];
  return (
    <div className="stack">
      <p role="status" data-testid="difference">
        {pairs.length === 0
          ? 'Neither run opened a page.'
          : firstDifference === null
            ? `Both runs opened the same ${pairs.length} page${pairs.length === 1 ? '' : 's'}, in the same order.`
            : `The runs part at page ${firstDifference + 1} of ${pairs.length}.`}
      </p>
      {pairs.length > 0 && (
        <ol className="compare-steps" aria-label="Pages opened, run by run">
          {pairs.map((p) => (
            <li key={p.index} data-same={p.same || undefined} data-chosen={p.index === chosen || undefined}>
              <button type="button" onClick={() => setChosen(p.index)} aria-current={p.index === chosen ? 'step' : undefined}>
                <span className="compare-n">{p.index + 1}</span>
                <span className="compare-url" title={p.a ? clipAddress(p.a.url, 2000) : undefined}>
                  {p.a ? clipAddress(p.a.url) : '—'}
                </span>
                <span className="compare-url" title={p.b && !p.same ? clipAddress(p.b.url, 2000) : undefined}>
                  {p.same ? '(the same)' : p.b ? clipAddress(p.b.url) : '—'}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
      {pair && (
        <div className="compare-sides">
          {([pair.a, pair.b] as const).map((step, i) => (
            <StepView key={runs[i]!.id} teamId={teamId} run={runs[i]!} step={step} />
          ))}
        </div>
      )}
    </div>
  );
}

function StepView({ teamId, run, step }: { teamId: string; run: Run; step: Step | null }) {
  const base = `/api/teams/${teamId}/recordings/${run.id}`;
  return (
    <section className="stack-sm" aria-label={run.label}>
      <h3>{run.label}</h3>
      {!step ? (
        <p className="muted">This run opened no page here.</p>
      ) : (
        <>
          <p className="compare-url" title={clipAddress(step.url, 2000)}>
            {clock(step.t)} · {clipAddress(step.url)}
          </p>
          <div className="inspector-screen">
            {step.frame ? (
              <img
                src={`${base}/screen?offset=${step.frame.offset}&length=${step.frame.length}`}
                alt={`${run.label}: the screen of ${clipAddress(step.url, 100)}`}
              />
            ) : (
              <p className="muted">Nothing was drawn on this page.</p>
            )}
          </div>
          {step.problems.length === 0 ? (
            <p className="muted">No errors or failed requests on this page.</p>
          ) : (
            <ul className="compare-problems" aria-label={`${run.label}: problems on this page`}>
              {step.problems.map((r) => (
                <li key={r.seq}>
                  <span className="inspector-at">{clock(r.t)}</span> {r.text} <span className="muted">{r.note}</span>
                </li>
              ))}
            </ul>
          )}
          <a href={`/teams/${teamId}/recordings/${run.id}?t=${Math.round(step.t)}`}>Open in the inspector here</a>
        </>
      )}
    </section>
  );
}
