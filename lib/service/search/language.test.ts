import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectLanguages, dominantLanguage } from './language.ts';
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
