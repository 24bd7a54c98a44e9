'use client';
import { Fragment, useState, type RefObject } from 'react';
import { displayUrl, highlight } from '#portal/search/highlight.ts';
import type { SearchHit } from '#portal/search/types.ts';

const names = new Intl.DisplayNames(['en'], { type: 'language' });
/** A language's name in English ("German" for de), or its code when unknown. */
export const languageName = (code: string): string => {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
};

/** The snippet with the query's words in <mark> (its language's stop words aside): React elements
 * only, the text is never parsed as HTML. */
export function Highlighted({ text, query, language }: { text: string; query: string; language: string }) {
  return (
    <>{highlight(text, query, language).map((s, i) => (s.hit ? <mark key={i}>{s.text}</mark> : <Fragment key={i}>{s.text}</Fragment>))}</>
  );
}

/** A site's icon as the index recorded it, gone when it cannot load (no gap before the address); the
 * address is never sent as a referrer. An icon that failed before the page came alive is seen by its ref. */
function SiteIcon({ src }: { src: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return null;
  return (
    <img
      className="result-icon"
      src={src}
      alt=""
      width={16}
      height={16}
      loading="lazy"
      referrerPolicy="no-referrer"
      data-testid="result-icon"
      ref={(img) => {
        if (img?.complete && img.naturalWidth === 0) setFailed(true);
      }}
      onError={() => setFailed(true)}
    />
  );
}

/**
 * The ranked results. Each title is a link: arrow keys or j/k move the focus from one to the
 * next (see search-client.tsx), Enter opens the focused one.
 */
export function Results({
  results,
  first,
  query,
  language,
  active,
  listRef,
}: {
  results: SearchHit[];
  /** The number of the first result (a later page starts past 1). */
  first: number;
  query: string;
  /** The query's language: a result written in another one says which. */
  language: string;
  active: number;
  listRef: RefObject<HTMLOListElement | null>;
}) {
  return (
    <ol className="results" ref={listRef} aria-label="Search results" start={first}>
      {results.map((r, i) => (
        <li key={r.url} className={`result${i === active ? ' result-active' : ''}`} data-testid="result">
          <a className="result-title" href={r.url} data-result-index={i} rel="noopener noreferrer">
            {r.title || displayUrl(r.url)}
          </a>
          {r.section && (
            <div className="result-section" data-testid="result-section">
              {r.section.join(' › ')}
            </div>
          )}
          <div className="result-url" title={r.url}>
            {r.favicon && <SiteIcon src={r.favicon} />}
            {displayUrl(r.url)}
            {r.language && r.language !== language && (
              <span className="badge result-language" lang={r.language} title={`This page is in ${languageName(r.language)}`}>
                {languageName(r.language)}
              </span>
            )}
          </div>
          {r.snippet && (
            <p className="result-snippet">
              <Highlighted text={r.snippet} query={query} language={language} />
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}
