/**
 * What an instance sees inside its sandbox (docs/decisions/0050-instance-isolation.md). These are
 * paths in the sandbox's own mount view; the host folders behind them are the instance's alone.
 */
export const SANDBOX = {
  home: '/home/browser',
  profile: '/home/browser/profile',
  downloads: '/downloads',
  uploads: '/uploads',
  /** The folder holding the Unix socket of the instance's egress proxy. */
  run: '/run/periscope',
  egressSocket: '/run/periscope/egress.sock',
  /** The Chromium install (read-only). */
  chromium: '/opt/chromium',
  /** The loopback port inside the sandbox's network namespace that relays to the egress socket. */
  proxyPort: 3128,
} as const;

/** The instance's uid and gid inside its user namespace (mapped to its own host uid). */
export const SANDBOX_UID = 1000;

/** The least system a trial sandbox of the start-up probe needs (probe.ts, folder-trial.ts): the
 * host's /usr read-only with the usual links into it, its own /proc and a minimal /dev. */
export const TRIAL_SYSTEM = [
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
] as const;

/** The managed policy of full Chromium builds: one more layer for what the CDP policy judges. */
export function managedPolicy(downloads: string): Record<string, unknown> {
  return {
    URLBlocklist: [
      'file://*',
      'filesystem:*',
      'chrome://*',
      'chrome-untrusted://*',
      'chrome-extension://*',
      'chrome-search://*',
      'devtools://*',
      'view-source:*',
    ],
    ExtensionInstallBlocklist: ['*'],
    // 2 ("disallowed") would refuse the service's own DevTools attach as well: extensions are refused instead.
    DeveloperToolsAvailability: 0,
    DownloadDirectory: downloads,
    PromptForDownloadLocation: false,
    AllowFileSelectionDialogs: false,
    DefaultFileSystemReadGuardSetting: 2,
    DefaultFileSystemWriteGuardSetting: 2,
    PasswordManagerEnabled: false,
    BrowserSignin: 0,
    // Chromium's own calls home (component and time updates): they would only fill the egress log.
    ComponentUpdatesEnabled: false,
    BrowserNetworkTimeQueriesEnabled: false,
    MetricsReportingEnabled: false,
    SearchSuggestEnabled: false,
    TranslateEnabled: false,
  };
}

/**
 * A fontconfig file that reads the system's configuration and the fonts shipped with the binary,
 * caching what it scans in `cacheDir` (or, when null, the user's cache folder: $XDG_CACHE_HOME).
 */
export function fontsConfig(extraDir: string | null, cacheDir: string | null): string {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<fontconfig>',
    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
    '  <dir>/usr/share/fonts</dir>',
    ...(extraDir ? [`  <dir>${xmlText(extraDir)}</dir>`] : []),
    cacheDir ? `  <cachedir>${xmlText(cacheDir)}</cachedir>` : '  <cachedir prefix="xdg">fontconfig</cachedir>',
    '</fontconfig>',
    '',
  ].join('\n');
}

/** A path as XML text (a host path may hold `&` or `<`). */
const xmlText = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export const passwdFile = `root:x:0:0::/:/usr/sbin/nologin\nbrowser:x:${SANDBOX_UID}:${SANDBOX_UID}::${SANDBOX.home}:/usr/sbin/nologin\nnobody:x:65534:65534::/:/usr/sbin/nologin\n`;
export const groupFile = `root:x:0:\nbrowser:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`;
