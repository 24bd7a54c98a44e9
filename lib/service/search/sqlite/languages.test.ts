import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { IndexReader } from './query.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-languages-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const page = (title: string, body: string) =>
  `<!doctype html><html lang="fr"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body
    .split('\n')
    .map((p) => `<p>${p}</p>`)
    .join('')}</main></body></html>`;

describe('a question in French', () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  // The page that answers, and pages that say `le` and `comment` much more often.
  writer.upsert(
    buildDocument({
      url: 'https://docs.test/fr/pare-feu.html',
      html: page('Filtrage', 'Pour configurer un pare-feu, on écrit des règles de filtrage des paquets de chaque interface.'),
    }),
  );
  const chatter = [
    'Comment lire le journal ? Le journal le plus utile est le journal du système, comment le configurer et le relire.',
    'Le démon le redémarre ; comment le savoir ? Le voici, le message le dit, comment le configurer le dit aussi.',
    'Le service le plus simple se lance, comment le configurer le premier jour ? Le fichier le décrit et le montre.',
  ];
  // English pages, as most of an index is: French words are rare in it, so `le` weighs as much as a rare word.
  for (let i = 0; i < 30; i++)
    writer.upsert(
      buildDocument({
        url: `https://docs.test/en/page${i}.html`,
        html: page(`Topic ${i}`, `Topic ${i} explains how the service number ${i} starts and stops.`).replace('lang="fr"', 'lang="en"'),
      }),
    );
  chatter.forEach((body, i) =>
    writer.upsert(buildDocument({ url: `https://docs.test/fr/journal${i}.html`, html: page(`Lecture ${i}`, body) })),
  );
  writer.finish();
  writer.close();
  const reader = new IndexReader(file);
  after(() => reader.close());
  const urls = (query: string, language: string) =>
    reader.search({ query, language, limit: 10, exact: true }).results.map((r) => r.url.replace('https://docs.test/fr/', ''));

  it('finds its page first with French selected: `le` and `comment` are not what it asks', () => {
    assert.equal(urls('comment configurer le pare-feu', 'fr')[0], 'pare-feu.html');
  });

  it('reads an elided article as what it is: `l’interface` is the word `interface`', () => {
    assert.deepEqual(urls('filtrer l’interface', 'fr'), ['pare-feu.html']);
  });
});
