import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { primaryLanguage } from '../language-tags.ts';
import { LanguagePages } from './language-pages.ts';
import { SqliteIndexWriter } from './writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-language-pages-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const GERMAN =
  'Die Konfiguration des Dienstes wird in der Datei gespeichert, und der Dienst liest sie beim Start. Wenn die Datei fehlt, ' +
  'verwendet der Dienst die Voreinstellungen und schreibt eine Warnung in das Protokoll, damit der Betreiber es bemerkt.';
const ENGLISH =
  'The configuration of the service is kept in a file, and the service reads it when it starts. When the file is missing, ' +
  'the service uses its defaults and writes a warning to the log, so that whoever runs it notices.';
const FRENCH =
  'La configuration du service est gardée dans un fichier, et le service la lit au démarrage. Quand le fichier manque, ' +
  'le service prend ses valeurs par défaut et écrit un avertissement dans le journal.';

/** A page at `url` whose text is `body`, with `lang` on its markup (none when null). */
const page = (url: string, lang: string | null, body: string) =>
  buildDocument({
    url,
    html: `<!doctype html><html${lang ? ` lang="${lang}"` : ''}><head><title>Page</title></head><body><main><p>${body}</p></main></body></html>`,
  });

it("reads each page's language from its signals as the page's own (`pages.lang`) is: markup first, else its text's, and its address's", () => {
  const file = join(dir, 'index.db');
  const writer = new SqliteIndexWriter(file);
  const docs = [
    page('https://docs.test/fr/a.html', 'fr-CA', FRENCH),
    page('https://docs.test/b.html', 'fr', ENGLISH), // the markup wins over the text
    page('https://docs.test/c.html', null, GERMAN), // no markup: the text's language
    page('https://docs.test/d.html', null, ENGLISH),
    page('https://docs.test/nl-NL/e.html', null, ENGLISH), // English text, Dutch address
    page('https://docs.test/f.html', 'de-AT', GERMAN),
    page('https://docs.test/g.html', 'en', GERMAN),
  ];
  for (const d of docs) writer.upsert(d);
  writer.finish();
  writer.close();

  const db = new DatabaseSync(file, { readOnly: true });
  after(() => db.close());
  const rows = db
    .prepare('SELECT p.id AS id, p.url AS url, p.lang AS lang, s.url_lang AS url_lang FROM pages p JOIN signals s ON s.id = p.id')
    .all() as {
    id: number;
    url: string;
    lang: string | null;
    url_lang: string | null;
  }[];
  const expected = (language: string) =>
    rows
      .filter((r) => (r.lang && primaryLanguage(r.lang) === language) || (r.url_lang && primaryLanguage(r.url_lang) === language))
      .map((r) => r.url)
      .sort();
  // What the test could miss: a page whose language only its text tells, and one only its address does.
  assert.deepEqual(expected('de'), ['https://docs.test/c.html', 'https://docs.test/f.html']);
  assert.deepEqual(expected('nl'), ['https://docs.test/nl-NL/e.html']);

  const pages = new LanguagePages(db);
  for (const language of ['fr', 'de', 'en', 'nl', 'ja']) {
    const of = pages.of(language, 1, null);
    const got = rows
      .filter((r) => of[r.id] === 1)
      .map((r) => r.url)
      .sort();
    assert.deepEqual(got, expected(language), language);
  }
  // Among the pages allowed only.
  const allowed = new Uint8Array(Math.max(...rows.map((r) => r.id)) + 1);
  const c = rows.find((r) => r.url.endsWith('/c.html'))!;
  allowed[c.id] = 1;
  const german = pages.of('de', 1, allowed);
  assert.deepEqual(
    rows.filter((r) => german[r.id] === 1).map((r) => r.url),
    ['https://docs.test/c.html'],
  );
});
