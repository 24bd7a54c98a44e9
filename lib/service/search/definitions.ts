import { words } from './tokenize.ts';

/**
 * Definition heads: what a definition-list term, a reference-table key or an anchor id names,
 * reduced to its words (`coroutine asyncio.gather(*aws)` -> `asyncio gather`, `sqrt ( numeric )
 * → numeric` -> `sqrt`, `log_min_messages (enum)` -> `log min messages`). A page whose definition
 * head equals what the searcher typed is the page that defines it: the known-item answer.
 */
const KEYWORDS =
  /^(?:class|coroutine|method|function|attribute|exception|data|classmethod|staticmethod|awaitable|abstractmethod|property|async|decorator|module|static|final|enum|struct|macro|var|const|opcode|pdbcommand|envvar|option|keyword|directive|role)\s+/i;
const MAX_PARTS = 8;
/** A dotted name's trailing part (`math.sqrt` read as `sqrt`) names it less surely than a whole name. */
const TAIL_WEIGHT = 0.3;
const SPAN_WEIGHT = 0.8;

export type DefinitionHead = { head: string; weight: number };

/** The heads of one term entry: its full name, and (weaker) the trailing parts of a dotted name. */
export function definitionHeads(entry: string): DefinitionHead[] {
  let t = entry.replace(/¶/g, '').trim();
  t = (t.split(/\s*[(=→[,;{]|\s[-–—]\s/)[0] ?? '').trim();
  for (let i = 0; i < 3 && KEYWORDS.test(t); i++) t = t.replace(KEYWORDS, '');
  const parts = words(t);
  if (!parts.length || parts.length > MAX_PARTS) return [];
  const out: DefinitionHead[] = [{ head: parts.join(' '), weight: 1 }];
  const dotted = t.split('.');
  for (let i = 1; i < dotted.length; i++) {
    const tail = words(dotted.slice(i).join('.'));
    if (tail.length) out.push({ head: tail.join(' '), weight: TAIL_WEIGHT });
  }
  return out;
}

/** A heading as a definition entry: without its section number (`9.7.1. LIKE` -> `LIKE`,
 * `Appendix C. SQL Key Words` -> `SQL Key Words`, `F.28.3.8.8. s2k-count` -> `s2k-count`). */
export function headingEntry(heading: string): string {
  return heading.replace(/^(?:(?:chapter|appendix|part)\s+)?(?:\d+|[A-Z](?=\.))(?:\.\d+)*\.?\s+/i, '').trim();
}

/** What to look up for a query: the whole query, and each identifier in it. */
export function queryHeads(concepts: readonly { parts: string[]; stop: boolean }[]): DefinitionHead[] {
  const real = concepts.filter((c) => !c.stop);
  const all = real.flatMap((c) => c.parts);
  const out: DefinitionHead[] = [];
  if (all.length && all.length <= MAX_PARTS) out.push({ head: all.join(' '), weight: 1 });
  if (real.length > 1) for (const c of real) if (c.parts.length > 1) out.push({ head: c.parts.join(' '), weight: 0.6 });
  // The query without its first or last words (`fsync configuration parameter` -> `fsync`): an
  // index entry often qualifies the term it names. Weighted by the share of the query kept.
  for (let len = real.length - 1; len >= 1; len--) {
    for (const start of len === real.length - 1 ? [0, 1] : [0, real.length - len]) {
      const span = real.slice(start, start + len).flatMap((c) => c.parts);
      const head = span.join(' ');
      if (out.some((h) => h.head === head)) continue;
      out.push({ head, weight: SPAN_WEIGHT * (span.length / all.length) });
    }
  }
  return out;
}
