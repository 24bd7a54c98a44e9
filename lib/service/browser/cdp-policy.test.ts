import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClientMessage } from '../protocol/devtools.ts';
import { isInside, judge, urlProblem, type InstanceFolders, type Verdict } from './cdp-policy.ts';

const folders: InstanceFolders = { downloads: '/downloads', uploads: '/uploads' };

let nextId = 1;
const msg = (method: string, params?: Record<string, unknown>, sessionId?: string): ClientMessage => ({
  id: nextId++,
  method,
  ...(params ? { params } : {}),
  ...(sessionId ? { sessionId } : {}),
});
const verdict = (method: string, params?: Record<string, unknown>): Verdict => judge(msg(method, params), folders);
const show = (v: unknown) => JSON.stringify(v);

function assertRefused(m: ClientMessage, label = show(m)): void {
  const v = judge(m, folders);
  assert.equal(v.action, 'refuse', `${label} must be refused, got ${show(v)}`);
  if (v.action === 'refuse') assert.ok(v.reason.length > 0, `${label}: a refusal says why`);
}

function assertPasses(m: ClientMessage, label = show(m)): void {
  assert.deepEqual(judge(m, folders), { action: 'pass' }, `${label} must pass`);
}

/** Wrap a message for Target.sendMessageToTarget (non-flattened sessions). */
const wrap = (inner: unknown, id = nextId++): ClientMessage => ({
  id,
  method: 'Target.sendMessageToTarget',
  params: { sessionId: 'S1', message: typeof inner === 'string' ? inner : JSON.stringify(inner) },
});

/** Addresses from the security report: each must be refused wherever a url is opened or fetched. */
const BAD_URLS = [
  'file:///etc/passwd',
  'FILE:///x',
  'File:///etc/shadow',
  'file://localhost/etc/passwd',
  '\u0001file:///etc/passwd',
  '\u0000file:///x',
  ' file:///x',
  '\u001ffile:///x \u0000',
  'fi\tle:///etc/passwd',
  'fi\nle:///x',
  'fi\rle:///x',
  'f\ti\nl\re:///x',
  '\u0066ile:///x',
  'view-source:https://x',
  'view-source:file:///etc/passwd',
  'chrome://version',
  'CHROME://settings',
  'chrome://settings/',
  'chrome-untrusted://x/',
  'chrome-search://local-ntp/',
  'about:version',
  'about:settings',
  'about:Blank',
  'about:blank/../version',
  'about:%62lank',
  'chrome-extension://abc/x',
  'devtools://devtools/x',
  'devtools://devtools/bundled/inspector.html',
  'filesystem:http://x/temporary/a',
  'filesystem:file:///x',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'java\tscript:alert(1)',
  'ws://example.com/',
  'ftp://example.com/',
  'blob', // relative
  'etc/passwd',
  '/etc/passwd',
  '//example.com/x',
  '../../etc/passwd',
  '?x',
  '#x',
  ' ',
  '\t',
  'http://',
  'https://exa mple.com/',
  'http://[::1',
  '%%%',
];

const URL_METHODS = [
  'Page.navigate',
  'Target.createTarget',
  'Network.loadNetworkResource',
  'Fetch.continueRequest',
  'Network.continueInterceptedRequest',
];

const GOOD_URLS = [
  'http://example.com/',
  'https://example.com/a?b=c#d',
  'HTTPS://EXAMPLE.COM/',
  'https://user:pw@example.com:8443/x',
  'http://127.0.0.1:8080/',
  'data:text/html,<h1>hi</h1>',
  'data:,',
  'blob:https://example.com/4f0e8b3a-0000-4000-8000-000000000000',
  'about:blank',
  'about:blank#top',
  'about:blank?x=1',
  'about:srcdoc',
  ' https://example.com/ ', // leading and trailing spaces are dropped, as Chromium does
];

describe('CDP policy: addresses', () => {
  for (const method of URL_METHODS) {
    for (const url of BAD_URLS) {
      it(`refuses ${method} to ${show(url)}`, () => assertRefused(msg(method, { url, frameId: 'F', requestId: 'R' })));
    }
    for (const url of GOOD_URLS) {
      it(`lets ${method} to ${show(url)} pass`, () => assertPasses(msg(method, { url, frameId: 'F', requestId: 'R' })));
    }
  }

  it('refuses a url that is not a string', () => {
    for (const url of [null, 1, true, ['https://x'], { href: 'https://x' }]) {
      for (const method of URL_METHODS) assertRefused(msg(method, { url }));
    }
  });

  it('treats an empty url as about:blank for Target.createTarget only', () => {
    assertPasses(msg('Target.createTarget', { url: '' }));
    assertPasses(msg('Target.createTarget', { url: '', browserContextId: 'C', newWindow: true }));
    for (const method of URL_METHODS.filter((m) => m !== 'Target.createTarget')) assertRefused(msg(method, { url: '' }));
  });

  it('leaves commands without a url to Chromium (it refuses them itself)', () => {
    assertPasses(msg('Target.createTarget', {}));
    assertPasses(msg('Fetch.continueRequest', { requestId: 'R' }));
    assertPasses(msg('Page.navigate'));
  });

  it('judges PWA.install addresses like navigations', () => {
    assertRefused(msg('PWA.install', { manifestId: 'https://x/', installUrlOrBundleUrl: 'file:///etc/passwd' }));
    assertRefused(msg('PWA.install', { manifestId: 'https://x/', installUrlOrBundleUrl: ' file:///x' }));
    assertPasses(msg('PWA.install', { manifestId: 'https://x/', installUrlOrBundleUrl: 'https://x/app.swbn' }));
    assertPasses(msg('PWA.install', { manifestId: 'https://x/' }));
  });

  it('urlProblem explains what is wrong, and null when nothing is', () => {
    assert.match(urlProblem('file:///x', false) ?? '', /file:/);
    assert.match(urlProblem('about:version', false) ?? '', /about:version/);
    assert.equal(urlProblem('not a url', false), 'not a valid absolute address');
    assert.equal(urlProblem(42, false), 'url must be a string');
    assert.equal(urlProblem('', true), null);
    assert.equal(urlProblem('', false), 'not a valid absolute address');
    assert.equal(urlProblem('https://example.com', false), null);
  });
});

describe('CDP policy: files', () => {
  const badFiles: [string, unknown][] = [
    ['/etc/passwd', ['/etc/passwd']],
    ['a good file then /etc/passwd', ['/uploads/report.pdf', '/etc/passwd']],
    ['/uploads/../etc/passwd', ['/uploads/../etc/passwd']],
    ['/uploads/a/../../etc', ['/uploads/a/../../etc']],
    ['/uploads/a/../b (not normal, even if inside)', ['/uploads/a/../b']],
    ['/uploads/./a', ['/uploads/./a']],
    ['/uploads//a', ['/uploads//a']],
    ['//uploads/a', ['//uploads/a']],
    ['/uploads itself', ['/uploads']],
    ['/uploads/', ['/uploads/']],
    ['/uploads/.', ['/uploads/.']],
    ['/uploads/..', ['/uploads/..']],
    ['/uploadsX/a', ['/uploadsX/a']],
    ['/uploads-other/a', ['/uploads-other/a']],
    ['relative uploads/a', ['uploads/a']],
    ['relative ./uploads/a', ['./uploads/a']],
    ['a path with NUL', ['/uploads/a\u0000/../../etc/passwd']],
    ['a path ending in NUL', ['/uploads/a\u0000']],
    ['/downloads/x (downloads are not uploads)', ['/downloads/x']],
    ['a file: url', ['file:///uploads/a']],
    ['a non-string entry', [42]],
    ['a null entry', [null]],
    ['an object entry', [{ path: '/uploads/a' }]],
    ['files as a string', '/uploads/a'],
    ['files as an object', { 0: '/uploads/a', length: 1 }],
    ['files null', null],
    ['files missing', undefined],
  ];
  for (const [label, files] of badFiles) {
    it(`refuses DOM.setFileInputFiles with ${label}`, () =>
      assertRefused(msg('DOM.setFileInputFiles', { files, backendNodeId: 1 }), label));
    it(`refuses PWA.launchFilesInApp with ${label}`, () =>
      assertRefused(msg('PWA.launchFilesInApp', { manifestId: 'https://x/', files }), label));
    // A drag event without files (data.files absent, or null, which Chromium's parser rejects) reads nothing.
    if (files !== undefined && files !== null) {
      it(`refuses Input.dispatchDragEvent dropping ${label}`, () =>
        assertRefused(
          msg('Input.dispatchDragEvent', { type: 'drop', x: 1, y: 1, data: { items: [], dragOperationsMask: 1, files } }),
          label,
        ));
    }
  }

  it('lets files from the uploads folder pass', () => {
    assertPasses(msg('DOM.setFileInputFiles', { files: ['/uploads/report.pdf'], nodeId: 3 }));
    assertPasses(
      msg('DOM.setFileInputFiles', { files: ['/uploads/report.pdf', '/uploads/with space.txt', '/uploads/..hidden', '/uploads/a..b'] }),
    );
    assertPasses(msg('PWA.launchFilesInApp', { manifestId: 'https://x/', files: ['/uploads/a.txt'] }));
    assertPasses(
      msg('Input.dispatchDragEvent', { type: 'drop', x: 1, y: 1, data: { items: [], dragOperationsMask: 1, files: ['/uploads/a.txt'] } }),
    );
  });

  it('lets an empty list pass (it clears the input, reads nothing)', () => {
    assertPasses(msg('DOM.setFileInputFiles', { files: [], nodeId: 3 }));
  });

  it('lets drag events without files pass', () => {
    assertPasses(
      msg('Input.dispatchDragEvent', {
        type: 'dragEnter',
        x: 1,
        y: 1,
        data: { items: [{ mimeType: 'text/plain', data: 'hi' }], dragOperationsMask: 1 },
      }),
    );
    assertPasses(msg('Input.dispatchDragEvent', { type: 'dragCancel', x: 1, y: 1 }));
  });

  it('isInside: only normal absolute paths strictly below the folder', () => {
    assert.equal(isInside('/uploads/a', '/uploads'), true);
    assert.equal(isInside('/uploads/a/b', '/uploads'), true);
    assert.equal(isInside('/uploads', '/uploads'), false);
    assert.equal(isInside('/uploads/', '/uploads'), false);
    assert.equal(isInside('/uploadsX', '/uploads'), false);
    assert.equal(isInside('/uploads/../uploads/a', '/uploads'), false);
    assert.equal(isInside('uploads/a', '/uploads'), false);
    assert.equal(isInside('/uploads/a\0', '/uploads'), false);
    assert.equal(isInside('/home/x/uploads/a', '/home/x/uploads'), true);
    assert.equal(isInside('/home/x/uploads/../Downloads/a', '/home/x/uploads'), false);
  });
});

describe('CDP policy: refused methods and domains', () => {
  const refused: [string, Record<string, unknown>][] = [
    ['Target.exposeDevToolsProtocol', { targetId: 'T', bindingName: 'cdp' }],
    ['Target.setRemoteLocations', { locations: [{ host: '10.0.0.1', port: 9222 }] }],
    ['Tethering.bind', { port: 22 }],
    ['Tethering.unbind', { port: 22 }],
    ['Cast.enable', {}],
    ['Cast.startTabMirroring', { sinkName: 'x' }],
    ['Extensions.loadUnpacked', { path: '/' }],
    ['Extensions.uninstall', { id: 'abc' }],
    ['Extensions.getStorageItems', { id: 'abc', storageArea: 'local' }],
    ['Extensions.setStorageItems', { id: 'abc', storageArea: 'local', values: {} }],
    ['Extensions.removeStorageItems', { id: 'abc', storageArea: 'local', keys: [] }],
    ['Extensions.clearStorageItems', { id: 'abc', storageArea: 'local' }],
    ['Extensions.anythingNewChromiumAdds', {}],
  ];
  for (const [method, params] of refused) it(`refuses ${method}`, () => assertRefused(msg(method, params)));

  it('refuses them without params as well', () => {
    for (const [method] of refused) assertRefused(msg(method));
  });

  it('refuses browser contexts that route around the egress proxy', () => {
    assertRefused(msg('Target.createBrowserContext', { proxyServer: 'direct://' }));
    assertRefused(msg('Target.createBrowserContext', { proxyServer: 'socks5://10.0.0.1:1080' }));
    assertRefused(msg('Target.createBrowserContext', { proxyServer: '' }));
    assertRefused(msg('Target.createBrowserContext', { proxyServer: null }));
    assertRefused(msg('Target.createBrowserContext', { proxyBypassList: '*' }));
    assertRefused(msg('Target.createBrowserContext', { originsWithUniversalNetworkAccess: ['https://x'] }));
    assertRefused(msg('Target.createBrowserContext', { disposeOnDetach: true, proxyServer: 'direct://', proxyBypassList: '<local>' }));
    const v = verdict('Target.createBrowserContext', { proxyServer: 'direct://', proxyBypassList: '*' });
    assert.equal(v.action, 'refuse');
    if (v.action === 'refuse') assert.match(v.reason, /proxyServer, proxyBypassList/);
  });

  it('lets browser contexts without proxy fields pass', () => {
    assertPasses(msg('Target.createBrowserContext'));
    assertPasses(msg('Target.createBrowserContext', {}));
    assertPasses(msg('Target.createBrowserContext', { disposeOnDetach: true }));
  });

  it('lets ordinary commands pass, whatever their text says', () => {
    assertPasses(msg('Runtime.evaluate', { expression: 'location = "file:///etc/passwd"' }));
    assertPasses(msg('Runtime.evaluate', { expression: '1 + 1', returnByValue: true }));
    assertPasses(msg('Page.enable'));
    assertPasses(msg('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }));
    assertPasses(msg('Target.attachToTarget', { targetId: 'T', flatten: true }));
    assertPasses(msg('Target.attachToBrowserTarget'));
    assertPasses(msg('Page.captureScreenshot', { format: 'png' }));
    assertPasses(msg('Network.setCookie', { name: 'a', value: 'b', url: 'https://x' }));
  });

  it('keeps the sessionId of a judged message', () => {
    const m = msg('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/etc' }, 'SESSION');
    const v = judge(m, folders);
    assert.equal(v.action, 'rewrite');
    if (v.action === 'rewrite') assert.equal(v.message.sessionId, 'SESSION');
  });
});

describe('CDP policy: downloads', () => {
  for (const method of ['Browser.setDownloadBehavior', 'Page.setDownloadBehavior']) {
    for (const behavior of ['allow', 'allowAndName']) {
      for (const downloadPath of [undefined, '/etc/cron.d', '/downloads', '/downloads/../root', '', 'relative', 42]) {
        it(`${method} ${behavior} with downloadPath ${show(downloadPath)} is kept in the downloads folder`, () => {
          const m = msg(method, { behavior, ...(downloadPath === undefined ? {} : { downloadPath }), eventsEnabled: true });
          assert.deepEqual(judge(m, folders), {
            action: 'rewrite',
            message: { id: m.id, method, params: { behavior, downloadPath: '/downloads', eventsEnabled: true } },
          });
        });
      }
    }

    it(`${method} default becomes allow, into the downloads folder`, () => {
      const m = msg(method, { behavior: 'default', downloadPath: '/root', browserContextId: 'C' });
      assert.deepEqual(judge(m, folders), {
        action: 'rewrite',
        message: { id: m.id, method, params: { behavior: 'allow', downloadPath: '/downloads', browserContextId: 'C' } },
      });
    });

    it(`${method} deny passes unchanged`, () => {
      assertPasses(msg(method, { behavior: 'deny' }));
      assertPasses(msg(method, { behavior: 'deny', downloadPath: '/etc' }));
    });

    it(`${method} with a bogus behavior is refused`, () => {
      for (const behavior of ['Allow', 'allow ', 'bogus', '', null, 1, undefined]) {
        assertRefused(
          msg(method, behavior === undefined ? { downloadPath: '/etc' } : { behavior, downloadPath: '/etc' }),
          `behavior ${show(behavior)}`,
        );
      }
      assertRefused(msg(method));
    });
  }

  it('does not change the judged message itself', () => {
    const m = msg('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/etc' });
    judge(m, folders);
    assert.deepEqual(m.params, { behavior: 'allow', downloadPath: '/etc' });
  });
});

describe('CDP policy: wrapped messages (Target.sendMessageToTarget)', () => {
  const forbidden: Record<string, unknown>[] = [
    { id: 1, method: 'Page.navigate', params: { url: 'file:///etc/passwd' } },
    { id: 1, method: 'Page.navigate', params: { url: '\u0001file:///etc/passwd' } },
    { id: 1, method: 'Target.createTarget', params: { url: 'chrome://version' } },
    { id: 1, method: 'DOM.setFileInputFiles', params: { files: ['/etc/passwd'] } },
    { id: 1, method: 'Extensions.loadUnpacked', params: { path: '/' } },
    { id: 1, method: 'Tethering.bind', params: { port: 1 } },
    { id: 1, method: 'Target.exposeDevToolsProtocol', params: { targetId: 'T' } },
    { id: 1, method: 'Target.createBrowserContext', params: { proxyServer: 'direct://' } },
    { id: 1, method: 'Browser.setDownloadBehavior', params: { behavior: 'bogus' } },
  ];
  for (const inner of forbidden) {
    it(`refuses a wrapped ${inner.method} ${show(inner.params)}`, () => assertRefused(wrap(inner)));
    it(`refuses a doubly wrapped ${inner.method} ${show(inner.params)}`, () =>
      assertRefused(wrap(JSON.parse(JSON.stringify(wrap(inner))))));
  }

  it('refuses a forbidden command at any depth', () => {
    let m: ClientMessage = { id: 1, method: 'Page.navigate', params: { url: 'file:///etc/passwd' } };
    for (let depth = 1; depth <= 6; depth++) {
      m = wrap(m);
      assertRefused(m, `nested ${depth} deep`);
    }
  });

  it('refuses messages nested very deep, even harmless ones', () => {
    let m: ClientMessage = { id: 1, method: 'Runtime.evaluate', params: { expression: '1' } };
    // MAX_DEPTH is 4: four wrappers around a command are judged, a fifth is refused.
    for (let depth = 1; depth <= 4; depth++) {
      m = wrap(m);
      assert.equal(judge(m, folders).action, 'rewrite', `nested ${depth} deep`);
    }
    for (let depth = 5; depth <= 8; depth++) {
      m = wrap(m);
      assertRefused(m, `nested ${depth} deep`);
    }
  });

  it('refuses wrapped text that is not one message', () => {
    for (const text of [
      'not json',
      '{"id":1,"method":"Page.navigate"',
      '',
      'null',
      '1',
      '"Page.navigate"',
      '[]',
      '[{"id":1,"method":"Page.enable"}]',
      '{}',
    ]) {
      assertRefused(wrap(text), `wrapped ${show(text)}`);
    }
    assertRefused(wrap({ method: 'Page.enable' }), 'without an id');
    assertRefused(wrap({ id: 1 }), 'without a method');
    assertRefused(wrap({ id: '1', method: 'Page.enable' }), 'with a string id');
    assertRefused(wrap({ id: 1, method: 7 }), 'with a numeric method');
    assertRefused(wrap({ id: 1, method: 'Page.enable', params: 'x' }), 'with string params');
    assertRefused(wrap({ id: 1, method: 'Page.enable', params: null }), 'with null params');
  });

  it('refuses a sendMessageToTarget without a message string', () => {
    assertRefused(msg('Target.sendMessageToTarget', { sessionId: 'S' }));
    assertRefused(msg('Target.sendMessageToTarget', { sessionId: 'S', message: { id: 1, method: 'Page.enable' } }));
    assertRefused(msg('Target.sendMessageToTarget'));
  });

  it('rewrites an allowed wrapped message to exactly what was judged', () => {
    const inner = { id: 7, method: 'Runtime.evaluate', params: { expression: '1 + 1' } };
    const outer = wrap(inner);
    const v = judge(outer, folders);
    assert.equal(v.action, 'rewrite');
    if (v.action !== 'rewrite') return;
    assert.deepEqual(
      { ...v.message, params: { ...v.message.params, message: undefined } },
      { ...outer, params: { ...outer.params, message: undefined } },
    );
    assert.deepEqual(JSON.parse(v.message.params?.message as string), inner);
  });

  it('re-serialises the wrapped text: duplicate keys and extra fields never reach Chromium', () => {
    // JSON.parse keeps the last duplicate; the judged (https) value is the one sent on, alone.
    const text =
      '{"id":3,"method":"Page.navigate","params":{"url":"https://ok/"},"sessionId":"X","extra":1,"params":{"url":"https://ok/"}}';
    const v = judge(wrap(text), folders);
    assert.equal(v.action, 'rewrite');
    if (v.action !== 'rewrite') return;
    const sent = v.message.params?.message as string;
    assert.deepEqual(JSON.parse(sent), { id: 3, method: 'Page.navigate', params: { url: 'https://ok/' } });
    assert.equal(sent, JSON.stringify({ id: 3, method: 'Page.navigate', params: { url: 'https://ok/' } }));

    const sneaky = '{"id":3,"method":"Page.navigate","params":{"url":"https://ok/"},"params":{"url":"file:///etc/passwd"}}';
    assertRefused(wrap(sneaky), 'a duplicate params key whose last value is file:');
    assertRefused(wrap('{"id":3,"method":"Page.navigate","params":{"url":"https://ok/","url":"file:///x"}}'), 'a duplicate url key');
    assertRefused(wrap('{"id":3,"method":"Page\\u002enavigate","params":{"url":"file:///x"}}'), 'an escaped method name');
    assertRefused(wrap('{"id":3,"method":"Extensions\\u002eloadUnpacked","params":{"path":"/"}}'), 'an escaped refused domain');
  });

  it('rewrites a wrapped setDownloadBehavior so its path is kept inside', () => {
    const v = judge(
      wrap({ id: 9, method: 'Browser.setDownloadBehavior', params: { behavior: 'allow', downloadPath: '/etc/cron.d' } }),
      folders,
    );
    assert.equal(v.action, 'rewrite');
    if (v.action !== 'rewrite') return;
    assert.deepEqual(JSON.parse(v.message.params?.message as string), {
      id: 9,
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: '/downloads' },
    });
  });

  it('rewrites a doubly wrapped setDownloadBehavior at the innermost level', () => {
    const v = judge(
      wrap(wrap({ id: 9, method: 'Page.setDownloadBehavior', params: { behavior: 'default', downloadPath: '/' } }, 8)),
      folders,
    );
    assert.equal(v.action, 'rewrite');
    if (v.action !== 'rewrite') return;
    const middle = JSON.parse(v.message.params?.message as string) as ClientMessage;
    assert.equal(middle.method, 'Target.sendMessageToTarget');
    assert.equal(middle.id, 8);
    assert.deepEqual(JSON.parse(middle.params?.message as string), {
      id: 9,
      method: 'Page.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: '/downloads' },
    });
  });

  it('passes the wrapped message on with its params when it has none', () => {
    const v = judge(wrap({ id: 2, method: 'Page.enable' }), folders);
    assert.equal(v.action, 'rewrite');
    if (v.action === 'rewrite') assert.deepEqual(JSON.parse(v.message.params?.message as string), { id: 2, method: 'Page.enable' });
  });
});
