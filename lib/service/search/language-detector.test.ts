import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eld } from 'eld/medium';
import { detectLanguage } from './language-detector.ts';

/** A sentence in each of many of eld's languages and scripts. */
const SENTENCES = [
  'The package manager installs the software and resolves all of its dependencies before the system is restarted.',
  'Der Paketmanager installiert die Software und löst dabei alle Abhängigkeiten auf, bevor das System neu gestartet wird.',
  'Le gestionnaire de paquets installe le logiciel et résout toutes ses dépendances avant le redémarrage du système.',
  'El gestor de paquetes instala el software y resuelve todas sus dependencias antes de que se reinicie el sistema.',
  'Il gestore dei pacchetti installa il software e risolve tutte le sue dipendenze prima del riavvio del sistema.',
  'O gerenciador de pacotes instala o software e resolve todas as suas dependências antes de reiniciar o sistema.',
  'De pakketbeheerder installeert de software en lost alle afhankelijkheden op voordat het systeem opnieuw start.',
  'Pakethanteraren installerar programvaran och löser alla beroenden innan systemet startas om.',
  'Menedżer pakietów instaluje oprogramowanie i rozwiązuje wszystkie zależności przed ponownym uruchomieniem systemu.',
  'Správce balíčků nainstaluje software a vyřeší všechny jeho závislosti před restartováním systému.',
  'Paket yöneticisi yazılımı yükler ve sistem yeniden başlatılmadan önce tüm bağımlılıkları çözer.',
  'Paketinhallinta asentaa ohjelmiston ja ratkaisee kaikki sen riippuvuudet ennen järjestelmän uudelleenkäynnistystä.',
  'A csomagkezelő telepíti a szoftvert, és a rendszer újraindítása előtt feloldja az összes függőségét.',
  'Менеджер пакетов устанавливает программное обеспечение и разрешает все его зависимости перед перезагрузкой системы.',
  'Менеджер пакетів встановлює програмне забезпечення і розв’язує всі його залежності перед перезавантаженням системи.',
  'Мениджърът на пакети инсталира софтуера и разрешава всички негови зависимости преди рестартиране на системата.',
  'Ο διαχειριστής πακέτων ΕΓΚΑΘΙΣΤΑ το λογισμικό και επιλύει όλες τις ΕΞΑΡΤΗΣΕΙΣ του πριν από την επανεκκίνηση του ΣΥΣΤΗΜΑΤΟΣ.',
  'يقوم مدير الحزم بتثبيت البرنامج وحل جميع تبعياته قبل إعادة تشغيل النظام.',
  'מנהל החבילות מתקין את התוכנה ופותר את כל התלויות שלה לפני שהמערכת מופעלת מחדש.',
  'مدیر بسته نرم‌افزار را نصب می‌کند و همه وابستگی‌های آن را پیش از راه‌اندازی دوباره سیستم حل می‌کند.',
  'पैकेज मैनेजर सॉफ़्टवेयर स्थापित करता है और सिस्टम के पुनः आरंभ होने से पहले उसकी सभी निर्भरताओं को हल करता है।',
  'ตัวจัดการแพ็กเกจติดตั้งซอฟต์แวร์และแก้ไขการพึ่งพาทั้งหมดก่อนที่ระบบจะเริ่มต้นใหม่',
  'パッケージマネージャはソフトウェアをインストールし、システムが再起動される前にすべての依存関係を解決します。',
  '软件包管理器会安装软件，并在系统重新启动之前解决所有依赖关系。',
  '패키지 관리자는 소프트웨어를 설치하고 시스템이 다시 시작되기 전에 모든 종속성을 해결합니다.',
  'Trình quản lý gói cài đặt phần mềm và giải quyết tất cả các phụ thuộc của nó trước khi hệ thống khởi động lại.',
  'პაკეტების მენეჯერი აყენებს პროგრამას და წყვეტს ყველა დამოკიდებულებას სისტემის გადატვირთვამდე.',
  'Փաթեթների կառավարիչը տեղադրում է ծրագիրը և լուծում է բոլոր կախվածությունները համակարգի վերագործարկումից առաջ։',
  'தொகுப்பு மேலாளர் மென்பொருளை நிறுவி, கணினி மறுதொடக்கம் செய்யப்படுவதற்கு முன் அனைத்து சார்புகளையும் தீர்க்கிறது.',
  "Don't stop: it's the user’s `config` file, İstanbul's ΣΊΣΥΦΟΣ and ŞİŞLİ.",
];

/** Pieces that eld's edge cases come from: separators, apostrophes that keep a word whole, letters
 * whose lower case is longer or depends on what follows, marks, astral and lone surrogates, digits. */
const ODD = [
  ' ',
  '  ',
  '\n',
  '\t',
  '.',
  ', ',
  "'",
  '`',
  '’',
  "''",
  '-',
  '_',
  '©',
  '123',
  '3.14',
  'İ',
  'Σ',
  'ς',
  'ΌΣ',
  'e\u0301',
  '\u0300',
  '\u200d',
  '😀',
  '𠀋𠀌',
  '\ud800',
  '\udc00',
  'ß',
  'ﬁ',
  'Å',
  'ǅ',
  'ー',
  'ʰ',
];

/** A seeded generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A text of words drawn from the sentences, odd pieces between and inside them, some words run
 * together past eld's 70-byte cap, some texts past the 1,000 characters eld reads. */
function text(next: () => number): string {
  const words = SENTENCES.join(' ').split(/\s+/);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const length = Math.floor(next() ** 2 * 400);
  let out = '';
  for (let i = 0; i < length; i++) {
    const r = next();
    if (r < 0.7) out += pick(words);
    else if (r < 0.85) out += pick(ODD);
    else if (r < 0.9) out += pick(words).repeat(1 + Math.floor(next() * 12));
    else out += pick(words).slice(0, 1 + Math.floor(next() * 6));
    out += next() < 0.8 ? ' ' : pick(ODD);
  }
  return out;
}

test('each sentence gets the language eld gives it, alone, in upper case and repeated', () => {
  const seen = new Set<string>();
  for (const s of SENTENCES) {
    for (const t of [s, s.toUpperCase(), `${s} ${s} ${s} ${s} ${s}`, s.replace(/ /g, '')]) {
      const expected = eld.detect(t).language;
      assert.equal(detectLanguage(t), expected, t);
      seen.add(expected);
    }
  }
  // The sentences reach many languages (so the scores are exercised, not only the empty answer).
  assert.ok(seen.size >= 25, [...seen].join(' '));
});

test('random texts of every script, separator and odd character get the language eld gives them', () => {
  const next = random(20261130);
  let named = 0;
  for (let i = 0; i < 4000; i++) {
    const t = text(next);
    const expected = eld.detect(t).language;
    assert.equal(detectLanguage(t), expected, `text ${i}: ${JSON.stringify(t.slice(0, 400))}`);
    if (expected) named++;
  }
  assert.ok(named > 3000, `${named} of 4000 texts had a language`);
});

test('nothing to read has no language, as in eld', () => {
  for (const t of ['', ' ', '12345 67890', '... --- !!!', '😀😀', '\ud800', 'a'])
    assert.equal(detectLanguage(t), eld.detect(t).language, JSON.stringify(t));
  assert.equal(detectLanguage(''), '');
  assert.equal(detectLanguage('12345'), '');
});
