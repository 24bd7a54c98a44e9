import { parseDocument } from 'htmlparser2';
import { definitionHeads } from './definitions.ts';
import { classNames, clean, textOf as anyTextOf, type HtmlNode } from './html-node.ts';
import { IndexMarks, isIndexAnchor } from './index-marks.ts';
import { sectionPath, Trail } from './trail.ts';
import { eachWord, firstWords, STOPWORDS, words } from './tokenize.ts';
import { normalizeUrl } from './url.ts';

/** What the index keeps of one HTML page. */
export type Extracted = {
  title: string;
  description: string;
  /** rel=canonical, resolved and normalised; null when absent or not http(s). */
  canonical: string | null;
  /** The `lang` of the markup as written (`en`, `pt-BR`), or null. */
  markupLang: string | null;
  headings: string[];
  /** Main text, one block (paragraph, list item, cell, heading) a line, without navigation. */
  blocks: string[];
  /** Terms the page defines: definition-list terms and the ids of its anchors (`asyncio.gather`). */
  terms: string[];
  /** The definition-list terms with the words of the description that follows them (a `<dt>` and
   * its `<dd>`, the member definitions nested in it and code left out): what each name is for, in
   * the manual's words (`str.strip`: `Return a copy of the string with the leading and trailing
   * characters removed …`). */
  described: Described[];
  /** Outgoing links (normalised absolute addresses) with their anchor text, and the words of the
   * block of text they stand in (linkContext()). */
  links: { url: string; text: string; context: string }[];
  /** Terms the page marks as index targets (index-marks.ts): definition terms and headings an index
   * anchor sits in or right beside, the spot a back-of-book index entry points at. */
  indexed: string[];
  /** The first words of each block an index anchor opens (an anchor right before a paragraph or a
   * synopsis, no text between): where an index entry points at a passage rather than a name. */
  anchored: string[];
  /** The distinct words (stop words aside) within NEAR_WORDS words after any index anchor, whatever
   * the markup between (index-marks.ts): what the manual's index entries pointing here are about. */
  nearAnchors: string[];
  /** The page's place in its manual, outermost first (`PostgreSQL 15 Documentation`, `Chapter 9. …`,
   * `9.7. Pattern Matching`), from its breadcrumb or navigation links and its title; [] when
   * nothing says more than the title. */
  section: string[];
  /** The site's icon as the page declares it (`<link rel=icon>`), resolved; null when it declares none. */
  icon: string | null;
};

type Node = HtmlNode;

const textOf = (node: Node): string => anyTextOf(node, SKIP);

const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'form',
  'button',
  'select',
  'textarea',
  'input',
  'map',
  'head',
]);
const BLOCK = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'td',
  'th',
  'tr',
  'table',
  'thead',
  'tbody',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'section',
  'article',
  'main',
  'blockquote',
  'br',
  'hr',
  'figure',
  'figcaption',
  'caption',
  'header',
  'footer',
  'nav',
  'aside',
  'address',
  'details',
  'summary',
]);
const HEADING = /^h[1-6]$/;
/** Inline elements that name something (an index anchor beside one marks the name). */
const INLINE_NAME = new Set(['code', 'tt', 'kbd', 'samp', 'var', 'acronym', 'abbr']);
/** Navigation for sure: dropped whatever it holds. */
const NAV_TAGS = new Set(['nav']);
const NAV_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'menu', 'menubar', 'toolbar']);
const NAV_NAMES =
  /^(nav|navbar|navigation|navheader|navfooter|docnav|menu|menubar|sphinxsidebar|sphinxsidebarwrapper|related|breadcrumbs?|footer|site-?footer|site-?header|site-?nav|masthead|skip-?links?|cookie-?(banner|notice|consent)|pagination|pager|mobile-nav|nav-content|top-?bar|header-?nav)$/i;
/** Possibly navigation: dropped when mostly links or very short. */
const MAYBE_TAGS = new Set(['header', 'footer', 'aside']);
const MAYBE_NAMES = /^(sidebar|aside|header|toc|share|social|widget)$/i;
const NOISE_ID = /^(id[-._]?\d|index-\d|\d|ftn|footnote-ref|sec-\d|toc-|cite[_-]|fn\d|r\d+$)/i;
const MAX_DEPTH = 400;
/** Words of a block an index anchor opens that count as what the anchor points at. */
const ANCHORED_WORDS = 16;
const MAX_BLOCKS = 20_000;

type Link = { url: string; text: string; context: string };
/** A defined name and the first words of its description (extract.ts described). */
export type Described = { term: string; words: string };

type Sink = {
  blocks: string[];
  cur: string;
  headings: string[];
  terms: string[];
  described: Described[];
  links: Link[];
  /** Links of the block being read, given its text as their context when it ends. */
  open: Link[];
  indexed: string[];
  anchored: string[];
  textChars: number;
  linkChars: number;
};

const newSink = (): Sink => ({
  blocks: [],
  cur: '',
  headings: [],
  terms: [],
  described: [],
  links: [],
  open: [],
  indexed: [],
  anchored: [],
  textChars: 0,
  linkChars: 0,
});

function flush(s: Sink): void {
  const t = s.cur.replace(/\s+/g, ' ').trim();
  if (t && s.blocks.length < MAX_BLOCKS) s.blocks.push(t);
  s.cur = '';
  if (s.open.length) {
    const context = linkContext(t);
    for (const l of s.open) l.context = context;
    s.open = [];
  }
}

/** Words of a block that says what the links in it point at. */
const CONTEXT_WORDS = 64;

/** The distinct words of the block a link stands in, stop words aside (at most CONTEXT_WORDS): the
 * sentence around `see Section 9.11` says what the section is about when its text does not. */
export function linkContext(block: string): string {
  const out = new Set<string>();
  for (const w of eachWord(block)) {
    if (out.size >= CONTEXT_WORDS) break;
    if (w.length <= 40 && !STOPWORDS.has(w)) out.add(w);
  }
  return [...out].join(' ');
}

function merge(into: Sink, from: Sink): void {
  flush(from);
  flush(into);
  into.blocks.push(...from.blocks);
  into.headings.push(...from.headings);
  into.terms.push(...from.terms);
  into.described.push(...from.described);
  into.links.push(...from.links);
  into.indexed.push(...from.indexed);
  into.anchored.push(...from.anchored);
  into.textChars += from.textChars;
  into.linkChars += from.linkChars;
}

type Walk = {
  base: string;
  head: { title: string; description: string; canonical: string | null; lang: string | null; icon: string | null };
  marks: IndexMarks;
  trail: Trail;
};

function walk(node: Node, sink: Sink, w: Walk, depth: number, inLink: boolean): void {
  if (depth > MAX_DEPTH) return;
  if (node.type === 'text') {
    const t = node.data ?? '';
    sink.cur += t;
    const n = t.trim().length;
    sink.textChars += n;
    w.marks.read(t);
    if (inLink) sink.linkChars += n;
    return;
  }
  if (!node.children) return;
  const name = node.name ?? '';
  const a = node.attribs ?? {};
  if (name === 'html' && a.lang) w.head.lang ??= a.lang;
  if (name === 'head' || name === 'title' || name === 'meta' || name === 'link' || name === 'base') readHead(node, w, depth);
  if (SKIP.has(name) || 'hidden' in a) return;
  const role = (a.role ?? '').toLowerCase();
  const names = classNames(a);
  w.trail.visit(name, a, names, node);
  if (NAV_TAGS.has(name) || NAV_ROLES.has(role) || names.some((c) => NAV_NAMES.test(c))) {
    w.trail.scan(node);
    return;
  }
  if (isIndexAnchor(name, a, names, node)) {
    sink.indexed.push(...w.marks.anchor());
    return;
  }
  const maybe = MAYBE_TAGS.has(name) || names.some((c) => MAYBE_NAMES.test(c));
  const target = maybe ? newSink() : sink;
  const block = BLOCK.has(name);
  if (block) flush(target);
  if (a.id && !NOISE_ID.test(a.id) && a.id.length <= 80 && name !== 'html' && name !== 'body') target.terms.push(a.id);
  const isLink = name === 'a' && typeof a.href === 'string';
  const before = target.cur.length;
  const marked = w.marks.open();
  const opened = (block || name === 'pre') && w.marks.opensHere();
  for (const c of node.children) walk(c, target, w, depth + 1, inLink || isLink);
  if (isLink) {
    const href = (a.href as string).trim();
    const url = href.startsWith('#') ? null : normalizeUrl(href, w.base);
    const text = clean(target.cur.slice(before)) || clean(a.title ?? '');
    if (url && text) {
      const link = { url, text: text.slice(0, 200), context: '' };
      target.links.push(link);
      target.open.push(link);
    }
  }
  if (HEADING.test(name)) {
    const h = clean(textOf(node));
    if (h) {
      target.headings.push(h);
      if (w.marks.heading(h, marked)) target.indexed.push(h);
    }
  }
  if (INLINE_NAME.has(name)) {
    const t = clean(textOf(node));
    if (t && t.length <= 60 && w.marks.name(t, marked)) target.indexed.push(t);
  }
  if (name === 'dt') {
    const t = clean(textOf(node));
    // A member documented under its class (`count(x)` with the id `collections.deque.count`) is
    // known by its qualified name, which the id already gave; its bare name is not what it defines.
    if (t && !(a.id && qualifies(a.id, t))) define(target, t.slice(0, 300), w.marks.holds(marked));
  }
  // The defining instance of a term (HTML's <dfn>, DocBook's firstterm).
  if (name === 'dfn' || names.includes('firstterm')) {
    const t = clean(textOf(node));
    if (t && t.length <= 80) define(target, t, w.marks.holds(marked));
  }
  if (name === 'dl') describe(target, node);
  if (name === 'tr') {
    const t = keyCell(node);
    if (t) define(target, t, w.marks.holds(marked));
  }
  if (opened) {
    const first = firstWords(textOf(node), ANCHORED_WORDS);
    if (first.length) target.anchored.push(first.join(' '));
  }
  if (block) flush(target);
  if (maybe) {
    const density = target.textChars ? target.linkChars / target.textChars : 0;
    if (target.textChars >= 200 && density < 0.35) merge(sink, target);
  }
}

/** Words of a definition's description kept (its first sentences say what it is for). */
const DESCRIPTION_WORDS = 60;
/** What a description's words leave out: the definitions nested in it (a class's members) and code. */
const NOT_DESCRIPTION = new Set([...SKIP, 'dl', 'pre']);

/** Each term of a definition list with the description after it (Sphinx's `<dt id="str.strip">`
 * names it by its id, qualified; a term without one by its text). */
function describe(s: Sink, dl: Node): void {
  let term = '';
  for (const c of dl.children ?? []) {
    if (c.name === 'dt') {
      const id = c.attribs?.id;
      term = id && !NOISE_ID.test(id) && id.length <= 80 ? id : clean(textOf(c)).slice(0, 300);
    } else if (c.name === 'dd' && term) {
      const text = firstWords(anyTextOf(c, NOT_DESCRIPTION), DESCRIPTION_WORDS);
      if (text.length) s.described.push({ term, words: text.join(' ') });
      term = '';
    }
  }
}

function define(s: Sink, term: string, indexed: boolean): void {
  s.terms.push(term);
  if (indexed) s.indexed.push(term);
}

/** `collections.deque.count` qualifies `count(x)`: the id is a longer dotted name ending in the
 * term's name. */
function qualifies(id: string, term: string): boolean {
  const head = definitionHeads(term)[0]?.head;
  if (!head || !/[.:]/.test(id)) return false;
  const full = words(id).join(' ');
  return full !== head && full.endsWith(` ${head}`);
}

/** The key of a table row, as reference tables have it: the first line of its first cell
 * (`bigint`, `sqrt ( numeric ) → numeric`). */
function keyCell(tr: Node): string {
  const cell = tr.children?.find((c) => c.name === 'td' || c.name === 'th');
  if (!cell?.children) return '';
  const firstBlock = cell.children.find((c) => c.name && BLOCK.has(c.name) && clean(textOf(c)));
  const t = clean(textOf(firstBlock ?? cell));
  return t.length <= 150 ? t : '';
}

function readHead(node: Node, w: Walk, depth: number): void {
  const a = node.attribs ?? {};
  switch (node.name) {
    case 'title':
      if (!w.head.title) w.head.title = clean(textOf(node));
      break;
    case 'meta': {
      const key = (a.name ?? a.property ?? '').toLowerCase();
      if ((key === 'description' || key === 'og:description') && !w.head.description) w.head.description = clean(a.content ?? '');
      if ((a['http-equiv'] ?? '').toLowerCase() === 'content-language' && a.content) w.head.lang ??= a.content;
      break;
    }
    case 'base':
      if (a.href) w.base = normalizeUrl(a.href, w.base) ?? w.base;
      break;
    case 'link': {
      const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('canonical') && a.href && !w.head.canonical) w.head.canonical = normalizeUrl(a.href, w.base);
      if (rel.includes('icon') && a.href && !w.head.icon) w.head.icon = iconUrl(a.href, w.base);
      w.trail.link(rel, a.title);
      break;
    }
    case 'head':
      for (const c of node.children ?? []) if (c.type !== 'text') readHead(c, w, depth + 1);
      break;
  }
}

/** An icon's address: http(s) resolved against the page, or a small inline `data:` image. */
function iconUrl(href: string, base: string): string | null {
  const h = href.trim();
  if (/^data:image\//i.test(h)) return h.length <= 4096 ? h : null;
  try {
    const u = new URL(h, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href.slice(0, 2000) : null;
  } catch {
    return null;
  }
}

/** Pull title, main text, headings, definitions, links and metadata out of an HTML page. */
export function extractHtml(html: string, pageUrl: string): Extracted {
  const doc = parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }) as unknown as Node;
  const w: Walk = {
    base: pageUrl,
    head: { title: '', description: '', canonical: null, lang: null, icon: null },
    marks: new IndexMarks(),
    trail: new Trail(),
  };
  const sink = newSink();
  walk(doc, sink, w, 0, false);
  flush(sink);
  const lang = w.head.lang ? (/^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?/i.exec(w.head.lang.trim())?.[0] ?? null) : null;
  const title = w.head.title || sink.headings[0] || '';
  return {
    title: title.slice(0, 500),
    description: w.head.description.slice(0, 1000),
    canonical: w.head.canonical,
    markupLang: lang,
    headings: sink.headings.slice(0, 500),
    blocks: sink.blocks,
    terms: [...new Set(sink.terms)].slice(0, 5000),
    described: sink.described.slice(0, 5000),
    links: sink.links.slice(0, 5000),
    indexed: [...new Set(sink.indexed)].slice(0, 5000),
    anchored: sink.anchored.slice(0, 2000),
    nearAnchors: w.marks.near().slice(0, 20_000),
    section: sectionPath(w.trail, title),
    icon: w.head.icon,
  };
}
