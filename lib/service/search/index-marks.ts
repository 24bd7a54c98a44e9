import { textOf, type HtmlNode } from './html-node.ts';
import { eachWord, STOPWORDS } from './tokenize.ts';

/** How many words after an index anchor count as near it (decision 0081). */
export const NEAR_WORDS = 32;

/**
 * Index anchors: the empty targets a manual's back-of-book index links to, which documentation
 * tools put where a term is defined or discussed (DocBook's `<a class="indexterm">`, Sphinx's
 * `<span class="target" id="index-N">`). The index entry's words are not on the page, but where
 * the anchor sits says which definition is the one the manual's authors point readers at: a
 * definition term or table row holding one, or a heading or definition it stands right beside
 * (no text between), or an inline name (code, an acronym) it stands right beside, is that page's
 * defining spot for the term. An anchor standing before a paragraph or a synopsis points at what
 * that block says: its first words are kept, weaker, as what the anchor marks. And whatever the
 * markup, the words that follow an anchor (NEAR_WORDS of them) are what its entry is about: a page
 * whose anchors are followed by every word of a query is where the manual's index sends a reader
 * looking for them.
 */
export function isIndexAnchor(name: string, attribs: Record<string, string>, names: readonly string[], node: HtmlNode): boolean {
  if (name !== 'a' && name !== 'span') return false;
  if (!names.includes('indexterm') && !/^index-\d+$/.test(attribs.id ?? '')) return false;
  return !textOf(node).trim();
}

/** Where index anchors fall relative to the text, headings and definitions of one page walk. */
export class IndexMarks {
  /** Characters of text seen so far (the walk adds to it). */
  text = 0;
  #anchors = 0;
  /** Text position of the last index anchor; a definition starting there stands right after it. */
  #pending = -1;
  #lastHeading: { text: string; at: number } | null = null;
  #lastName: { text: string; at: number } | null = null;
  /** Words still to take after the last index anchor, and the distinct words taken after any. */
  #nearLeft = 0;
  readonly #near = new Set<string>();

  /** Text the walk reads: counted, and its first words after an index anchor taken as near it. */
  read(text: string): void {
    this.text += text.trim().length;
    if (this.#nearLeft <= 0) return;
    for (const w of eachWord(text)) {
      if (this.#nearLeft-- <= 0) break;
      if (w.length <= 40 && !STOPWORDS.has(w)) this.#near.add(w);
    }
  }

  /** The distinct words (stop words aside) found within NEAR_WORDS words after an index anchor. */
  near(): string[] {
    return [...this.#near];
  }

  /** An index anchor: the heading or inline name (`<code>lo_import</code>`) it directly follows
   * (no text between), if any. */
  anchor(): string[] {
    this.#anchors++;
    this.#pending = this.text;
    this.#nearLeft = NEAR_WORDS;
    const out: string[] = [];
    if (this.#lastHeading?.at === this.text) out.push(this.#lastHeading.text);
    if (this.#lastName?.at === this.text) out.push(this.#lastName.text);
    return out;
  }

  /** Whether an index anchor stands right here (no text since): a block opening here is what it
   * points at. */
  opensHere(): boolean {
    return this.#anchors > 0 && this.#pending === this.text;
  }

  /** Before walking an element that may define something: where the walk stands. */
  open(): { anchors: number; text: number } {
    return { anchors: this.#anchors, text: this.text };
  }

  /** After walking it: whether an index anchor was inside it or came right before it. */
  holds(opened: { anchors: number; text: number }): boolean {
    return this.#anchors > opened.anchors || this.#pending === opened.text;
  }

  /** An inline name just walked (code, a keyword, an acronym): whether an index anchor stands
   * right before it; one right after it will mark it too. */
  name(text: string, opened: { anchors: number; text: number }): boolean {
    this.#lastName = { text, at: this.text };
    return this.#pending === opened.text && this.#anchors > 0;
  }

  /** A heading just walked: whether an anchor marks it; an anchor right after it will too. */
  heading(text: string, opened: { anchors: number; text: number }): boolean {
    this.#lastHeading = { text, at: this.text };
    return this.holds(opened);
  }
}
