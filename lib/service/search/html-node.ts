/** A node of htmlparser2's document tree, as the extractors read it. */
export type HtmlNode = { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: HtmlNode[] };

const MAX_DEPTH = 400;
const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);

/** The text under a node, as written, leaving out the elements named in `skip` (scripts, styles
 * and the like by default). */
export function textOf(node: HtmlNode, skip: ReadonlySet<string> = NO_TEXT, depth = 0): string {
  if (node.type === 'text') return node.data ?? '';
  if (depth > MAX_DEPTH || !node.children || (node.name && skip.has(node.name))) return '';
  let out = '';
  for (const c of node.children) out += textOf(c, skip, depth + 1);
  return out;
}

export const clean = (t: string): string => t.replace(/\s+/g, ' ').trim();

/** An element's class names and id, for matching names such as `navheader` or `breadcrumb`. */
export const classNames = (a: Record<string, string>): string[] => `${a.class ?? ''} ${a.id ?? ''}`.split(/\s+/).filter(Boolean);
