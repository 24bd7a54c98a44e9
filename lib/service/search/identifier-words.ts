import { isStopWord } from '#shared/stop-words.ts';
import type { Concept } from './tokenize.ts';

/**
 * An identifier of a query (`lo_import_with_oid`, `libpq-int.h`) and the words it is made of that
 * say what it is about: its parts but stop words (`lo`, `import`, `oid`), and for one of three
 * parts or more each two adjacent ones joined, as the index holds them (`loimport0`; tokenize.ts
 * indexTokens), but not a stop word's joins (`importwith0`). A page about the identifier uses them
 * on their own too (the large-objects page says `lo_import` and `OID` again and again); a page
 * naming it in passing holds them only where it names it (decision 0172).
 */
export type IdentifierWords = { compound: string; words: string[] };

export function identifierWords(concepts: readonly Concept[], language: string): IdentifierWords[] {
  const said = (p: string) => !isStopWord(p, language);
  const out: IdentifierWords[] = [];
  for (const c of concepts) {
    if (c.stop || !c.compound || c.parts.length < 2) continue;
    const words = new Set(c.parts.filter(said));
    if (c.parts.length > 2)
      for (let i = 0; i + 1 < c.parts.length; i++) {
        const [a, b] = [c.parts[i] as string, c.parts[i + 1] as string];
        if (said(a) && said(b)) words.add(`${a}${b}0`);
      }
    words.delete(c.compound);
    if (words.size) out.push({ compound: c.compound, words: [...words] });
  }
  return out;
}
