import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { rowsAsArrays } from '#shared/sqlite.ts';
import { pageLanguage, primaryLanguage, type LanguageShares } from '../language-tags.ts';
import { grown } from '../typed-arrays.ts';
import type { AllowedPages } from './first-stage.ts';

type Row = [id: number, markupLang: string | null, langShares: string, urlLang: string | null];

/** Every page's languages, read through the index `signals_languages` (schema.ts), not the whole
 * rows of `signals` (decision 0152). */
export const PAGE_LANGUAGES = 'SELECT id, markup_lang, lang_shares, url_lang FROM signals';

/** Languages whose pages a reader keeps worked out (one byte per page of the index each). */
const LANGUAGES_KEPT = 8;

/**
 * The pages of the index in each language, for the first stage to take a query's candidates among
 * them too (decision 0123): among many pages in other languages, those in the language asked for
 * can all rank below the first stage's best (a handbook page's commands are as common in its 26
 * translations), and a page that is no candidate is no result however the ranking likes its
 * language. A page is in a language when its text mostly is (its markup's language, else the one
 * most of its text is detected in: `pages.lang`, as document.ts works it out) or its address says so
 * (`/nl-NL/` of a translation not translated yet). Read once per index version, through
 * `signals_languages` alone: `pages.lang` comes after each page's text, so reading it reads every
 * page's whole text (at 10⁶ pages, 18.8 s of a cold start against 15.1). Each language's pages are
 * kept as a byte per page id, the few latest languages at most.
 */
export class LanguagePages {
  readonly #rows: StatementSync;
  /** Each page's languages (by their place in #names), as of the index version read: the page's
   * own in #own, its address's in #address (0 for none). */
  #own: Uint8Array | null = null;
  #address: Uint8Array | null = null;
  readonly #names = new Map<string, number>();
  readonly #kept = new Map<string, AllowedPages>();
  #version: number | null = null;

  constructor(db: DatabaseSync) {
    this.#rows = rowsAsArrays(db.prepare(PAGE_LANGUAGES));
  }

  /** The pages in `language` (a two-letter code) of those `allowed` (all when null), at `version`. */
  of(language: string, version: number, allowed: AllowedPages | null): AllowedPages {
    this.#sync(version);
    let pages = this.#kept.get(language);
    if (pages) this.#kept.delete(language);
    else {
      this.#read();
      const code = this.#names.get(language) ?? -1;
      const own = this.#own as Uint8Array;
      const address = this.#address as Uint8Array;
      pages = new Uint8Array(own.length);
      for (let id = 0; id < own.length; id++) if (own[id] === code || address[id] === code) pages[id] = 1;
      if (this.#kept.size >= LANGUAGES_KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    }
    this.#kept.set(language, pages);
    if (!allowed) return pages;
    const both = new Uint8Array(pages.length);
    for (let id = 0; id < pages.length; id++) both[id] = pages[id] && allowed[id] ? 1 : 0;
    return both;
  }

  /** Reads every page's languages at `version` now, as the first of() would. */
  warm(version: number): void {
    this.#sync(version);
    this.#read();
  }

  #sync(version: number): void {
    if (version === this.#version) return;
    this.#own = null;
    this.#address = null;
    this.#kept.clear();
    this.#version = version;
  }

  #read(): void {
    if (this.#own) return;
    let own = new Uint8Array(1024);
    let address = new Uint8Array(1024);
    let max = 0;
    for (const [id, markupLang, langShares, urlLang] of this.#rows.iterate() as Iterable<Row>) {
      if (id >= own.length) {
        const size = Math.max(id + 1, own.length * 2);
        own = grown(own, size);
        address = grown(address, size);
      }
      // Its markup's language, else its text's (the shares are parsed only then).
      const lang = pageLanguage(markupLang ? {} : (JSON.parse(langShares) as LanguageShares), markupLang);
      own[id] = this.#code(lang ? primaryLanguage(lang) : '');
      address[id] = this.#code(urlLang ? primaryLanguage(urlLang) : '');
      if (id > max) max = id;
    }
    this.#own = own.slice(0, max + 1);
    this.#address = address.slice(0, max + 1);
  }

  /** A language's place (from 1; 0 for none, and for languages past the 255th). */
  #code(language: string): number {
    if (!language) return 0;
    let code = this.#names.get(language);
    if (code === undefined) {
      if (this.#names.size >= 255) return 0;
      this.#names.set(language, (code = this.#names.size + 1));
    }
    return code;
  }
}
