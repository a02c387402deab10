import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CHROMEDRIVER, CHROMIUM, FIREFOX, GECKODRIVERS, NFT } from './paths.js';
import { isExecutable, isReadable } from './requirements.js';

/** One thing this host needs for the embedded Grid, and the Debian package that brings it. */
export interface HostPackage {
  /** what it is, for a person */
  what: string;
  debianPackage: string;
  /** an absolute path, or a command looked up on PATH; a program unless `data` */
  at: string;
  /** `at` is a file the browsers read (a font), not a program */
  data?: true;
  /** what is lost without it; undefined: the embedded Grid cannot start */
  without?: string;
  /** needed only when: root (the fence), or `tests` (the test suite: Redis, and the X tools that act as a person at a browser's window) */
  only?: 'root' | 'tests';
}

/** The embedded Grid's Debian packages: `selenium-flow setup` installs them, `doctor` checks them. */
export const HOST_PACKAGES: readonly HostPackage[] = [
  { what: 'Java 17', debianPackage: 'openjdk-17-jre-headless', at: 'java' },
  { what: 'Chromium', debianPackage: 'chromium', at: CHROMIUM },
  { what: 'ChromeDriver', debianPackage: 'chromium-driver', at: CHROMEDRIVER },
  { what: 'Firefox ESR', debianPackage: 'firefox-esr', at: FIREFOX, without: 'no Firefox (Chromium still works)' },
  // Debian's Chromium and Firefox draw emoji from it: without, a page's emoji are boxes in its screenshots and live view.
  {
    what: 'colour emoji font',
    debianPackage: 'fonts-noto-color-emoji',
    at: '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf',
    data: true,
    without: 'emoji show as boxes in pages, screenshots and the live view',
  },
  { what: 'Xvfb', debianPackage: 'xvfb', at: '/usr/bin/Xvfb', without: 'no live view' },
  { what: 'x11vnc', debianPackage: 'x11vnc', at: '/usr/bin/x11vnc', without: 'no live view' },
  { what: 'websockify', debianPackage: 'websockify', at: '/usr/bin/websockify', without: 'no live view' },
  // Each browser in a sandbox of its own, with its policies and none of this machine's files (sandbox.ts).
  {
    what: 'bubblewrap (each browser’s sandbox)',
    debianPackage: 'bubblewrap',
    at: '/usr/bin/bwrap',
    without: 'no watchable browser, and the browsers see this machine’s files',
  },
  // As root the browsers run as an unprivileged user, fenced off this host's ports by an nftables table.
  { what: 'nftables (the browsers’ fence)', debianPackage: 'nftables', at: NFT, only: 'root' },
  { what: 'Redis', debianPackage: 'redis-server', at: 'redis-server', only: 'tests' },
  { what: 'xdotool (the tests’ person at the window)', debianPackage: 'xdotool', at: 'xdotool', only: 'tests' },
  { what: 'xwd (the tests’ screenshots of a display)', debianPackage: 'x11-apps', at: 'xwd', only: 'tests' },
  { what: 'ImageMagick (the tests’ screenshots)', debianPackage: 'imagemagick', at: '/usr/bin/convert', only: 'tests' },
];

/** The packages this host needs, as `root` and with or without what the tests need. */
export function packagesFor(root: boolean, tests: boolean): HostPackage[] {
  return HOST_PACKAGES.filter((p) => p.only === undefined || (p.only === 'root' ? root : tests));
}

/** Where a package's program is, or undefined when it is missing. */
export async function locate(p: HostPackage): Promise<string | undefined> {
  if (p.at.startsWith('/')) {
    return (await (p.data ? isReadable(p.at) : isExecutable(p.at))) ? p.at : undefined;
  }
  return onPath(p.at);
}

export async function onPath(command: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await isExecutable(join(dir, command))) {
      return join(dir, command);
    }
  }
  return undefined;
}

/** Mozilla's driver where the embedded Grid looks for it (Debian packages none: setup builds it). */
export async function findGeckodriver(): Promise<string | undefined> {
  for (const path of GECKODRIVERS) {
    if (await isExecutable(path)) {
      return path;
    }
  }
  return undefined;
}

/** cargo on PATH, or where rustup puts it. */
export async function findCargo(): Promise<string | undefined> {
  const home = join(homedir(), '.cargo', 'bin', 'cargo');
  return (await onPath('cargo')) ?? ((await isExecutable(home)) ? home : undefined);
}
