import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { definitionDocuments } from '../descriptions.ts';
import { encodeRankFields, linkDensity, rankFields } from '../rank.ts';
import { indexTokens } from '../tokenize.ts';
import { urlWords } from '../url.ts';
import { signatureOf } from '../word-signature.ts';
import { packText } from './packed-text.ts';
import { PageText } from './page-text.ts';
import {
  CONTEXT_BITS,
  DEFINITION_SLOTS,
  FIELD_WEIGHTS,
  FTS_COLUMNS,
  MAX_CONTEXTS,
  MAX_LINK_BLOCKS,
  NEAR_SIGNATURE_BITS,
  PASSAGE_SLOTS,
} from './schema.ts';
import { FtsTokenizer } from './tokenizer.ts';

/** Inbound anchor texts a page's postings take, the most linked first. */
const MAX_ANCHOR_TEXTS = 400;
/** Blocks remembered per term and page: every one a passage can be (the first PASSAGE_SLOTS of the
 * page), so that ranking can score a page by its best passage (decision 0082). */
const MAX_PLACES = PASSAGE_SLOTS;

/** A page's terms as its postings take them (postings-writer.ts), in flat arrays that cross between
 * threads as they are. */
export type PageTerms = {
  /** The page's length in terms, as FTS5 counts it. */
  length: number;
  /** Its distinct terms, space-separated, in the order first met. */
  names: string;
  /** `names` as `page_term_lists` keeps it (packed-text.ts). */
  packed: Uint8Array;
  /** Each term's frequency, weighted by the fields it occurs in (schema.ts FIELD_WEIGHTS). */
  freqs: Float64Array;
  /** How many of `places` are each term's: the blocks it occurs in among the page's first
   * PASSAGE_SLOTS, ascending. */
  placeCounts: Uint16Array;
  places: Uint16Array;
};

/** The words of the blocks the links pointing at a page stand in (writer.ts link_words), each with
 * its `mask` and `blockCounts[i]` of `blocks`. */
export type LinkWords = { words: string[]; masks: Int32Array; blockCounts: Uint16Array; blocks: Uint16Array };

/** A described definition of the page as the query reads it (schema.ts `definitions`,
 * `described_terms`): its name, the links naming it, and its document's distinct terms. */
export type BuiltDefinition = { term: string; links: number; terms: string };

/** What the index writer stores for a page in finish(), read and worked out from what it holds. */
export type BuiltPage =
  | { id: number; gone: true }
  | {
      id: number;
      gone: false;
      inlinks: number;
      /** signals.rank_words (rank.ts encodeRankFields). */
      rankWords: string;
      /** signals.near_signature: of its words near an index anchor (word-signature.ts), null for none. */
      nearSignature: Uint8Array | null;
      linkWords: LinkWords;
      terms: PageTerms;
      /** Its described definitions, in the order of its `described` rows. */
      definitions: BuiltDefinition[];
      /** The page's text where a version before decision 0085 kept it (`pages.body`), to be moved. */
      oldText?: { description: string; body: string };
      /** The FTS5 row's columns (schema.ts FTS_COLUMNS), with the writer's `fullText` only. */
      fullText?: string[];
    };

type TokenCount = { weighted: number; n: number; places: number[] | null };

/**
 * Works out what the index keeps of a page that is built again: its postings' terms, counted over
 * its fields and the anchor text of the links to it; the words of those links' contexts; its
 * rank fields. Only reads the database, so that it can run on threads of its own (page-builds.ts)
 * beside the writer, which stores the result.
 */
export class PageBuilder {
  readonly #q: Record<'page' | 'anchors' | 'inlinks' | 'outlinks' | 'contexts' | 'described' | 'naming' | 'near', StatementSync>;
  readonly #text: PageText;
  readonly #tokenizer = new FtsTokenizer();
  readonly #fullText: boolean;

  constructor(db: DatabaseSync, { fullText = false }: { fullText?: boolean } = {}) {
    this.#fullText = fullText;
    this.#text = new PageText(db);
    this.#q = {
      page: db.prepare('SELECT url, title, description, headings, terms, body FROM pages WHERE id = ?'),
      anchors: db.prepare(`SELECT l.text AS text, COUNT(DISTINCT l.source_id) AS n FROM links l JOIN aliases a ON a.key = l.target_key
        WHERE a.page_id = ? AND l.source_id != ? GROUP BY l.text ORDER BY n DESC LIMIT ${MAX_ANCHOR_TEXTS}`),
      inlinks: db.prepare(
        `SELECT COUNT(DISTINCT l.source_id) AS n FROM links l JOIN aliases a ON a.key = l.target_key WHERE a.page_id = ? AND l.source_id != ?`,
      ),
      outlinks: db.prepare('SELECT COUNT(*) AS n FROM links WHERE source_id = ?'),
      contexts: db.prepare(`SELECT l.context AS context FROM links l JOIN aliases a ON a.key = l.target_key
        WHERE a.page_id = ? AND l.source_id != ? AND l.context != '' GROUP BY l.context ORDER BY COUNT(*) DESC, l.context LIMIT ${MAX_LINK_BLOCKS}`),
      described: db.prepare(`SELECT term, words FROM described WHERE page_id = ? ORDER BY rowid LIMIT ${DEFINITION_SLOTS}`),
      naming: db.prepare(`SELECT l.text AS text, l.context AS context FROM links l JOIN aliases a ON a.key = l.target_key
        WHERE a.page_id = ? AND l.source_id != ?`),
      near: db.prepare('SELECT words FROM near_words WHERE page_id = ?'),
    };
  }

  build(id: number): BuiltPage {
    const q = this.#q;
    const row = q.page.get(id) as
      { url: string; title: string; description: string; headings: string; terms: string; body: string } | undefined;
    if (!row) return { id, gone: true };
    // Its text as this version keeps it (page-text.ts), or in `body` as a version before did.
    const body = row.body !== '' ? row.body : (this.#text.whole(id) ?? '');
    const anchors = (q.anchors.all(id, id) as { text: string }[]).map((a) => a.text).join('\n');
    const density = linkDensity((q.outlinks.get(id) as { n: number }).n, body);
    const fields = {
      title: indexTokens(row.title),
      headings: indexTokens(row.headings),
      url: indexTokens(urlWords(row.url)),
      terms: indexTokens(row.terms),
      anchors: indexTokens(anchors),
    };
    // The body by block (a token never spans lines), so the postings know which passage holds it.
    const bodyBlocks = body.split('\n').map(indexTokens);
    return {
      id,
      gone: false,
      inlinks: (q.inlinks.get(id, id) as { n: number }).n,
      rankWords: encodeRankFields(rankFields(row.title, row.url, row.headings, density)),
      nearSignature: this.#nearSignature(id),
      linkWords: this.#linkWords(id),
      terms: this.#terms(fields, bodyBlocks),
      definitions: this.#definitions(id),
      ...(row.body !== '' && { oldText: { description: row.description, body } }),
      ...(this.#fullText && {
        fullText: [
          ...[fields.title, fields.headings, fields.url, fields.terms, fields.anchors].map((f) => f.join(' ')),
          bodyBlocks.map((b) => b.join(' ')).join(' '),
        ],
      }),
    };
  }

  /** The signature of the page's words near its index anchors, stored with its `near_words` row. */
  #nearSignature(id: number): Uint8Array | null {
    const near = this.#q.near.get(id) as { words: string } | undefined;
    return near ? signatureOf(near.words.split(' '), NEAR_SIGNATURE_BITS) : null;
  }

  /** The words of the blocks the links pointing at the page stand in (decisions 0081, 0082), each
   * with the blocks that hold it: by number (the first MAX_LINK_BLOCKS), and, of the blocks of the
   * MAX_CONTEXTS most repeated contexts, as bit i % CONTEXT_BITS of its mask. */
  #linkWords(id: number): LinkWords {
    const words = new Map<string, { mask: number; blocks: number[] }>();
    let i = 0;
    let row = 0;
    let total = 0;
    for (const { context } of this.#q.contexts.all(id, id) as { context: string }[]) {
      const masked = row++ < MAX_CONTEXTS;
      for (const block of context.split('\n')) {
        if (i >= MAX_LINK_BLOCKS) break;
        const bit = masked ? 1 << (i % CONTEXT_BITS) : 0;
        for (const word of block.split(' ')) {
          if (!word) continue;
          let w = words.get(word);
          if (!w) words.set(word, (w = { mask: 0, blocks: [] }));
          w.mask |= bit;
          if (w.blocks.at(-1) !== i) {
            w.blocks.push(i);
            total++;
          }
        }
        i++;
      }
    }
    const out: LinkWords = {
      words: [...words.keys()],
      masks: new Int32Array(words.size),
      blockCounts: new Uint16Array(words.size),
      blocks: new Uint16Array(total),
    };
    let k = 0;
    let b = 0;
    for (const w of words.values()) {
      out.masks[k] = w.mask;
      out.blockCounts[k++] = w.blocks.length;
      out.blocks.set(w.blocks, b);
      b += w.blocks.length;
    }
    return out;
  }

  /** The page's described definitions, each with its document (descriptions.ts
   * definitionDocuments: its description and the words around the links naming it) in the index's
   * terms. */
  #definitions(id: number): BuiltDefinition[] {
    const described = (this.#q.described.all(id) as { term: string; words: string }[]).map((d) => ({ page: id, ...d }));
    if (!described.length) return [];
    const links = (this.#q.naming.all(id, id) as { text: string; context: string }[]).map((l) => ({ page: id, ...l }));
    const documents = definitionDocuments(described, links, (words) => this.#tokenizer.termsOf(words));
    return described.map((d, i) => {
      const doc = documents[i] as { terms: string[]; links: number };
      return { term: d.term, links: doc.links, terms: doc.terms.join(' ') };
    });
  }

  /** The page's FTS5 terms (tokenizer.ts) with their weighted counts and blocks. */
  #terms(
    fields: Readonly<Record<Exclude<(typeof FTS_COLUMNS)[number], 'body'>, readonly string[]>>,
    bodyBlocks: readonly (readonly string[])[],
  ): PageTerms {
    const tokens = new Map<string, TokenCount>();
    const count = (stream: readonly string[], w: number, place: number) => {
      for (const token of stream) {
        const seen = tokens.get(token);
        if (seen) {
          seen.weighted += w;
          seen.n++;
          if (place >= 0) {
            if (!seen.places) seen.places = [place];
            else if (seen.places.length < MAX_PLACES && seen.places.at(-1) !== place) seen.places.push(place);
          }
        } else if (token) tokens.set(token, { weighted: w, n: 1, places: place >= 0 ? [place] : null });
      }
    };
    for (const column of FTS_COLUMNS) if (column !== 'body') count(fields[column], FIELD_WEIGHTS[column], -1);
    bodyBlocks.forEach((block, i) => count(block, FIELD_WEIGHTS.body, i < PASSAGE_SLOTS ? i : -1));

    // Tokens to terms: a token usually gives one, a word unicode61 splits several, separators none.
    const terms = new Map<string, TokenCount>();
    let length = 0;
    const add = (list: readonly string[], e: TokenCount) => {
      length += e.n * list.length;
      for (const t of list) {
        const into = terms.get(t);
        if (!into) terms.set(t, { weighted: e.weighted, n: e.n, places: e.places });
        else {
          into.weighted += e.weighted;
          into.n += e.n;
          if (e.places) into.places = [...new Set([...(into.places ?? []), ...e.places])].sort((a, b) => a - b).slice(0, MAX_PLACES);
        }
      }
    };
    // The words not met before in one trip through SQLite; the terms in the order of the page's
    // tokens, whatever this thread met before, so that every thread lists them alike.
    const lists = this.#tokenizer.termsOf([...tokens.keys()]);
    let i = 0;
    for (const e of tokens.values()) add(lists[i++] as readonly string[], e);

    const names = [...terms.keys()].join(' ');
    const out: PageTerms = {
      length,
      names,
      packed: packText(names),
      freqs: new Float64Array(terms.size),
      placeCounts: new Uint16Array(terms.size),
      places: new Uint16Array([...terms.values()].reduce((n, e) => n + (e.places?.length ?? 0), 0)),
    };
    let k = 0;
    let p = 0;
    for (const e of terms.values()) {
      out.freqs[k] = e.weighted;
      out.placeCounts[k++] = e.places?.length ?? 0;
      if (e.places) {
        out.places.set(e.places, p);
        p += e.places.length;
      }
    }
    return out;
  }

  close(): void {
    this.#tokenizer.close();
  }
}
