/**
 * The enterprise policies every sandboxed browser starts with (sandbox.ts): what a person at its
 * window, or a page, can no longer reach. Each browser's wrapper writes them into its own sandbox,
 * with its own proxy address, so they need no root and touch no machine-wide file.
 *
 * The text is a shell here-document's body: `${SF_ADDR}` is the browser's own proxy address and
 * `${SF_DOWNLOADS}` its downloads directory, filled in by the wrapper; no other `$`, backquote or
 * backslash may appear (policyText checks).
 */

/** The wrapper's variables a policy may name. */
const ADDRESS = '${SF_ADDR}';
const DOWNLOADS = '${SF_DOWNLOADS}';

/**
 * Internal pages a person could reach from the address bar: settings (proxy, downloads, site data),
 * flags, devtools' frontend, extensions, the file system, and page sources of either. New tab
 * pages stay, so a tab a person opens is not an error page.
 */
const CHROMIUM_BLOCKED = [
  'file://*',
  'chrome://*',
  'chrome-untrusted://*',
  'chrome-search://*',
  'devtools://*',
  'view-source:*',
];

/**
 * Chromium's: no file chooser (uploads are upload_file's, which needs none), internal pages
 * blocked, no extension installed, no proxy setting but the fence's. DeveloperToolsAvailability
 * cannot be set: it also refuses chromedriver's own DevTools connection ("Not allowed"), so the
 * devtools frontend is blocked by address instead.
 */
export function chromiumPolicy(proxyPort: number | undefined): string {
  return policyText({
    URLBlocklist: CHROMIUM_BLOCKED,
    // New tab pages, and chrome://sandbox, which says whether Chromium's own sandbox is on and nothing else.
    URLAllowlist: ['chrome://newtab', 'chrome://new-tab-page', 'chrome://new-tab-page-third-party', 'chrome://sandbox'],
    AllowFileSelectionDialogs: false,
    ExtensionInstallBlocklist: ['*'],
    PromptForDownloadLocation: false,
    IncognitoModeAvailability: 1,
    BrowserGuestModeEnabled: false,
    BrowserAddPersonEnabled: false,
    BrowserSignin: 0,
    SyncDisabled: true,
    PasswordManagerEnabled: false,
    TaskManagerEndProcessEnabled: false,
    DefaultBrowserSettingEnabled: false,
    MetricsReportingEnabled: false,
    ...(proxyPort === undefined
      ? {}
      : {
          // A policy outranks the command line and any extension: the fence's proxy, loopback included.
          ProxySettings: {
            ProxyMode: 'fixed_servers',
            ProxyServer: `http://${ADDRESS}:${proxyPort}`,
            ProxyBypassList: '<-loopback>',
          },
          WebRtcIPHandlingPolicy: 'disable_non_proxied_udp',
          QuicAllowed: false,
        }),
  });
}

/** A preference set and locked: no page, person or profile file changes it while Firefox runs. */
function locked(value: string | number | boolean): { Value: string | number | boolean; Status: 'locked' } {
  return { Value: value, Status: 'locked' };
}

/**
 * Firefox's: about:config, devtools (about:debugging with them), add-ons, profiles and private windows blocked; file pickers
 * off; the proxy and the downloads directory locked, so the user.js defaults the wrapper writes
 * cannot be turned off at run time.
 */
export function firefoxPolicy(proxyPort: number | undefined): string {
  const fence =
    proxyPort === undefined
      ? {}
      : {
          'network.proxy.allow_hijacking_localhost': locked(true),
          'network.proxy.failover_direct': locked(false),
          'network.proxy.no_proxies_on': locked(''),
          'media.peerconnection.ice.proxy_only': locked(true),
          'media.peerconnection.ice.proxy_only_if_behind_proxy': locked(true),
          'network.http.http3.enable': locked(false),
          'network.webtransport.enabled': locked(false),
          'network.trr.mode': locked(5),
          'network.dns.disablePrefetch': locked(true),
        };
  return policyText({
    policies: {
      BlockAboutConfig: true,
      BlockAboutProfiles: true,
      BlockAboutSupport: true,
      BlockAboutAddons: true,
      DisablePrivateBrowsing: true,
      DisableProfileImport: true,
      DisableFirefoxAccounts: true,
      DisableTelemetry: true,
      DisableFirefoxStudies: true,
      DisableAppUpdate: true,
      DontCheckDefaultBrowser: true,
      PasswordManagerEnabled: false,
      ExtensionSettings: { '*': { installation_mode: 'blocked' } },
      WebsiteFilter: { Block: ['file:///*'] },
      PromptForDownloadLocation: false,
      DownloadDirectory: DOWNLOADS,
      ...(proxyPort === undefined
        ? {}
        : {
            Proxy: {
              Mode: 'manual',
              Locked: true,
              HTTPProxy: `${ADDRESS}:${proxyPort}`,
              UseHTTPProxyForAllProtocols: true,
              Passthrough: '',
            },
          }),
      Preferences: {
        // DisableDeveloperTools would also lock remote.policy.disabled, which turns off Marionette
        // (the driver itself): its devtools half, alone.
        'devtools.policy.disabled': locked(true),
        'devtools.chrome.enabled': locked(false),
        // The one switch for every file chooser (a page's <input type=file>, Open File, Save As).
        'widget.disable_file_pickers': locked(true),
        'browser.download.useDownloadDir': locked(true),
        'browser.download.folderList': locked(2),
        ...fence,
      },
    },
  });
}

/** JSON for a here-document: the wrapper's variables expand, nothing else may. */
export function policyText(policy: unknown): string {
  const text = JSON.stringify(policy, null, 1);
  const stray = text.replaceAll(ADDRESS, '').replaceAll(DOWNLOADS, '');
  if (/[$`\\]/.test(stray)) {
    throw new Error('A browser policy may hold no $, backquote or backslash but the wrapper variables it names.');
  }
  return text;
}
