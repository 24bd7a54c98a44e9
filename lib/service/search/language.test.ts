import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectLanguages, dominantLanguage, weigh } from './language.ts';
import { normalizeTag } from './language-tags.ts';

const samples: Record<string, string> = {
  en: 'The package manager installs the software and resolves all of its dependencies before the system is restarted.',
  de: 'Der Paketmanager installiert die Software und löst dabei alle Abhängigkeiten auf, bevor das System neu gestartet wird.',
  fr: 'Le gestionnaire de paquets installe le logiciel et résout toutes ses dépendances avant le redémarrage du système.',
  es: 'El gestor de paquetes instala el software y resuelve todas sus dependencias antes de que se reinicie el sistema.',
  ja: 'パッケージマネージャはソフトウェアをインストールし、システムが再起動される前にすべての依存関係を解決します。',
  zh: '软件包管理器会安装软件，并在系统重新启动之前解决所有依赖关系。',
  ru: 'Менеджер пакетов устанавливает программное обеспечение и разрешает все его зависимости перед перезагрузкой системы.',
};

test('the language of a text', () => {
  for (const [lang, text] of Object.entries(samples)) assert.equal(dominantLanguage(detectLanguages([text, text])), lang, lang);
});

test('a partly translated page has a share in each language', () => {
  const shares = detectLanguages(
    [samples.es as string, samples.en as string, samples.es as string, samples.en as string].map((s) => s.repeat(6)),
  );
  assert.ok((shares.es ?? 0) > 0.3 && (shares.en ?? 0) > 0.3, JSON.stringify(shares));
  assert.deepEqual(detectLanguages(['12345', '']), {});
});

test('tags are normalised', () => {
  assert.equal(normalizeTag('pt_br'), 'pt-BR');
  assert.equal(normalizeTag('NO'), 'nb');
  assert.equal(normalizeTag('ms-MY'), 'id-MY');
});

test('a chunk is weighed by its letters and CJK characters in code units, as the patterns that define them count', () => {
  const pieces = [
    'a',
    'Z',
    'é',
    'ß',
    '1',
    ' ',
    '.',
    '\u0301',
    'Я',
    'ا',
    'ה',
    'क',
    'ก',
    '漢',
    'ひ',
    'カ',
    'ー',
    '한',
    '𠀋',
    '𝒜',
    '😀',
    '\ud800',
    '\udc00',
    '\uffff',
    'ʰ',
    '々',
    '〆',
    '㐀',
  ];
  const letters = (s: string) => s.replace(/\P{L}+/gu, '').length;
  const cjk = (s: string) => s.replace(/[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu, '').length;
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  let some = 0;
  for (let i = 0; i < 2000; i++) {
    let s = '';
    for (let n = Math.floor(next() * 40); n > 0; n--) s += pieces[Math.floor(next() * pieces.length)];
    assert.deepEqual(weigh(s), { letters: letters(s), cjk: cjk(s) }, JSON.stringify(s));
    if (cjk(s) > 0 && letters(s) > cjk(s)) some++;
  }
  assert.ok(some > 1000);
  // Every code unit of the BMP alone, and every astral letter's block start.
  for (let c = 0; c < 0x10000; c++) {
    const s = String.fromCharCode(c);
    assert.deepEqual(weigh(s), { letters: letters(s), cjk: cjk(s) }, c.toString(16));
  }
});
