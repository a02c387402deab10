/** Where this host's browsers, drivers and tools are (Debian packages, and npm run setup's geckodriver). */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMEDRIVER = '/usr/bin/chromedriver';
/** The binary itself, not /usr/bin's symlink: geckodriver reads the version beside what it starts. */
export const FIREFOX = '/usr/lib/firefox-esr/firefox-esr';
/** Where `cargo install --root /usr/local geckodriver` (npm run setup) puts Mozilla's driver. */
export const GECKODRIVERS = ['/usr/local/bin/geckodriver', '/usr/bin/geckodriver'];
export const FIREFOX_DISTRIBUTION = '/usr/lib/firefox-esr/distribution';
export const FIREFOX_POLICY = `${FIREFOX_DISTRIBUTION}/policies.json`;
/** Where Firefox also reads a machine's policies (and Debian's ESR its own): covered in a sandbox. */
export const FIREFOX_SYSTEM_POLICIES = ['/etc/firefox/policies', '/etc/firefox-esr/policies'];
/** Chromium's policy directory (Debian's build): a sandbox covers it with one of its own. */
export const CHROMIUM_POLICY_DIR = '/etc/chromium';
export const CHROMIUM_POLICY = '/etc/chromium/policies/managed/selenium-flow.json';
export const SG = '/usr/bin/sg';
export const SETPRIV = '/usr/bin/setpriv';
export const NFT = '/usr/sbin/nft';
export const BWRAP = '/usr/bin/bwrap';
