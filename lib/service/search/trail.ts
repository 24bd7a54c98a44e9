import { classNames, clean, textOf, type HtmlNode } from './html-node.ts';

/**
 * A page's section path (manual › chapter › section), gathered while its markup is walked, from
 * what documentation sites already write for readers:
 * - a breadcrumb (an element named or labelled `breadcrumb`, or Sphinx's `nav-item` list): its
 *   items in order;
 * - the links to the manual's start and to the enclosing section (`<link rel="home|start|up">`,
 *   or DocBook's navigation header links with access keys `h` and `u`), by their titles;
 * - the title's own structure (`re — Regular expression operations — Python 3.11.2 documentation`
 *   names the manual last).
 */
export class Trail {
  home: string | null = null;
  up: string | null = null;
  crumbs: string[] = [];
  #crumbsDone = false;

  /** A `<link>` of the page's head. */
  link(rel: readonly string[], title: string | undefined): void {
    const t = short(title);
    if (!t) return;
    if ((rel.includes('home') || rel.includes('start')) && !this.home) this.home = t;
    if (rel.includes('up') && !this.up) this.up = t;
  }

  /** One element of the page (navigation included): what it says of the page's place. */
  visit(name: string, a: Record<string, string>, names: readonly string[], node: HtmlNode): boolean {
    if (name === 'a') {
      const key = (a.accesskey ?? '').toLowerCase();
      const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
      if (key === 'h' || rel.includes('home') || rel.includes('start')) this.home ??= short(a.title);
      if (key === 'u' || rel.includes('up')) this.up ??= short(a.title);
      return false;
    }
    if (this.#crumbsDone) return false;
    if (name === 'li' && names.includes('nav-item')) {
      if (names.includes('nav-item-this')) this.#crumbsDone = true;
      else {
        const t = short(textOf(node).replace(/[»›>/|]\s*$/, ''));
        if (t) this.crumbs.push(t);
      }
      return true;
    }
    const label = (a['aria-label'] ?? '').toLowerCase();
    if (names.some((n) => /^breadcrumbs?$/i.test(n)) || label.includes('breadcrumb')) {
      const items = listItems(node);
      for (const t of items) this.crumbs.push(t);
      this.#crumbsDone = items.length > 0;
      return true;
    }
    return false;
  }

  /** A subtree the text extraction leaves out (navigation): only what it says of the path. */
  scan(node: HtmlNode, depth = 0): void {
    if (depth > 60 || !node.children) return;
    const a = node.attribs ?? {};
    if (node.name && this.visit(node.name, a, classNames(a), node)) return;
    for (const c of node.children) if (c.type === 'tag') this.scan(c, depth + 1);
  }
}

const MAX_PART = 80;
const MAX_PARTS = 6;

function short(text: string | undefined): string | null {
  const t = clean((text ?? '').replace(/¶/g, ''));
  if (!t) return null;
  return t.length <= MAX_PART ? t : `${t.slice(0, MAX_PART - 1).trimEnd()}…`;
}

/** A breadcrumb's items: its list items, else its links. */
function listItems(node: HtmlNode): string[] {
  const li: HtmlNode[] = [];
  const links: HtmlNode[] = [];
  const collect = (n: HtmlNode, depth: number) => {
    if (depth > 20 || !n.children) return;
    for (const c of n.children) {
      if (c.name === 'li') li.push(c);
      else if (c.name === 'a') links.push(c);
      else collect(c, depth + 1);
    }
  };
  collect(node, 0);
  return (li.length ? li : links).map((n) => short(textOf(n).replace(/[»›>/|]\s*$/, ''))).filter((t): t is string => !!t);
}

/** Separators between a page's own name and its site's or manual's, in titles. */
const TITLE_SEP = /\s+[—–|]\s+/;

/** The section path of a page: manual, enclosing sections, the page; [] when nothing says more
 * than the page's own title. */
export function sectionPath(trail: Trail, title: string): string[] {
  const parts = title
    .split(TITLE_SEP)
    .map((p) => short(p))
    .filter((p): p is string => !!p);
  const suffix = parts.length > 1 ? parts[parts.length - 1] : null;
  const self = parts.length > 1 ? short(parts.slice(0, -1).join(' — ')) : short(title);
  const out: string[] = [];
  const add = (t: string | null) => {
    if (t && !out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
  };
  add(suffix ?? trail.home);
  if (trail.crumbs.length) for (const c of trail.crumbs) add(c);
  else add(trail.up);
  add(self);
  return out.length > 1 ? out.slice(-MAX_PARTS) : [];
}
