import { decodeRankFields, headingIndexBytes, rankFields, type RankFields } from '../rank.ts';
import { hostOf } from '../sites.ts';
import type { WordSignature } from '../word-signature.ts';

/** A page's row of `signals`, as a query reads it. */
export type SignalRow = {
  id: number;
  url: string;
  title: string;
  headings: string;
  lang_shares: string;
  markup_lang: string | null;
  url_lang: string | null;
  inlinks: number;
  authority: number;
  rank_words: string;
  section: string;
  near_signature: Uint8Array | null;
};

/** What a query reads of a candidate page. */
export type Signals = {
  url: string;
  /** The host of `url` (sites.ts hostOf; '' for none), worked out once. */
  host: string;
  title: string;
  headings: string;
  langShares: Record<string, number>;
  markupLang: string | null;
  urlLang: string | null;
  inlinks: number;
  authority: number;
  fields: RankFields;
  section: string[] | null;
  /** Of its words near an index anchor (NearAnchors), null for none or an index from before them. */
  nearSignature: WordSignature | null;
};

/** A page's signals from its row, parsed once. */
export function signalsOf(row: SignalRow): Signals {
  return {
    url: row.url,
    host: hostOf(row.url) ?? '',
    title: row.title,
    headings: row.headings,
    langShares: JSON.parse(row.lang_shares) as Record<string, number>,
    markupLang: row.markup_lang,
    urlLang: row.url_lang,
    inlinks: row.inlinks,
    authority: row.authority,
    // Prepared at index time; worked out here for a page indexed before they were.
    fields: row.rank_words ? decodeRankFields(row.rank_words) : rankFields(row.title, row.url, row.headings),
    section: row.section ? (JSON.parse(row.section) as string[]) : null,
    nearSignature: row.near_signature,
  };
}

/** About what a string takes in V8 besides its characters. */
const HEADER_BYTES = 16;
/** About what a page's signals take in V8 besides their strings' characters: the two objects, the
 * languages' shares, the arrays and the two signatures with their buffers (calibrated against the
 * heap a reader's signals took, decision 0157). */
const OBJECT_BYTES = 900;
/** Beyond Latin-1 V8 keeps a string in two bytes a character. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** The bytes of a string's characters. */
export function textBytes(s: string): number {
  return BEYOND_LATIN1.test(s) ? 2 * s.length : s.length;
}

/**
 * About the memory a page's signals take: their strings, the row's rank fields (`rank_words`,
 * which the fields' lines are cut from and so kept by) and the same fields again as rank.ts reads
 * them, their objects, and the index of its headings' words once ranking has made it (decision 0163).
 */
export function signalsBytes(_id: number, p: Signals): number {
  const { fields } = p;
  let chars = textBytes(p.url) + textBytes(p.host) + textBytes(p.title) + textBytes(p.headings);
  chars += 2 * (textBytes(fields.title) + textBytes(fields.url) + textBytes(fields.headings));
  let strings = 10;
  for (const w of fields.titleWords) chars += textBytes(w);
  for (const line of p.section ?? []) chars += textBytes(line);
  for (const lang in p.langShares) chars += lang.length;
  strings += fields.titleWords.length + (p.section?.length ?? 0);
  return (
    OBJECT_BYTES +
    chars +
    HEADER_BYTES * strings +
    fields.signature.byteLength +
    (p.nearSignature?.byteLength ?? 0) +
    headingIndexBytes(fields)
  );
}
