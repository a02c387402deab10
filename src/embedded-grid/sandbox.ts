import { execFile } from 'node:child_process';
import { chmod, lstat, readlink, stat, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { BWRAP, CHROMIUM_POLICY_DIR, FIREFOX_DISTRIBUTION, FIREFOX_SYSTEM_POLICIES, SETPRIV } from './paths.js';
import { firstLine } from './processes.js';
import { isExecutable } from './requirements.js';
import { shellWord } from './shell.js';

const run = promisify(execFile);

/**
 * Every browser of the embedded Grid runs in a sandbox of its own (bubblewrap): the host's system
 * read-only, its own profile and downloads writable, and nothing else — no other browser's
 * profile, no Grid configuration, no home directory, none of the server's files. Its enterprise
 * policies are given to it there (policies.ts), so they hold whoever runs the server: a person at
 * the browser's window can use the page, not the machine (docs/security.md).
 *
 * It needs no root: bubblewrap makes an unprivileged user namespace, as Chromium's own sandbox
 * does inside it.
 */
export interface BrowserSandbox {
  bwrap: string;
  /** the mounts every browser's sandbox shares, before the ones its wrapper adds (profile, downloads, display) */
  system: string[];
}

/** The trees of the host a browser runs from, read-only: programs, libraries, fonts, configuration. */
const SYSTEM_TREES = ['/usr', '/etc', '/sys'];
/** Merged-/usr links (/bin → usr/bin) are made again as links; a tree of its own is bound read-only. */
const TOP_LINKS = ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];
const FONT_CACHE = '/var/cache/fontconfig';

/**
 * The sandbox, or why none can run here (a sentence with the remedy). `hidden`: the server's own
 * files (tokens file, secrets, data directory, config file); any of them under a tree the browsers
 * see is covered with an empty one.
 */
export async function browserSandbox(
  hidden: readonly string[],
): Promise<{ sandbox: BrowserSandbox; missing?: undefined } | { sandbox?: undefined; missing: string }> {
  const usable = await probe();
  if (usable !== undefined) {
    return { missing: usable };
  }
  const system: string[] = [];
  for (const tree of SYSTEM_TREES) {
    system.push('--ro-bind', tree, tree);
  }
  for (const top of TOP_LINKS) {
    const kind = await lstat(top).catch(() => undefined);
    if (kind?.isSymbolicLink()) {
      system.push('--symlink', await readlink(top), top);
    } else if (kind?.isDirectory()) {
      system.push('--ro-bind', top, top);
    }
  }
  if ((await stat(FONT_CACHE).catch(() => undefined))?.isDirectory()) {
    system.push('--ro-bind', FONT_CACHE, FONT_CACHE);
  }
  system.push(...(await covered(hidden)));
  // Policies come only from the wrapper: whatever the host's own say (or a machine-wide file of an
  // older selenium-flow) is covered first.
  for (const dir of [CHROMIUM_POLICY_DIR, ...FIREFOX_SYSTEM_POLICIES, FIREFOX_DISTRIBUTION]) {
    if ((await stat(dir).catch(() => undefined))?.isDirectory()) {
      system.push('--tmpfs', dir);
    }
  }
  system.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--dir',
    '/tmp/home',
    '--setenv',
    'HOME',
    '/tmp/home',
    '--chdir',
    '/tmp',
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--new-session',
  );
  return { sandbox: { bwrap: BWRAP, system } };
}

/** An empty directory over each hidden directory, /dev/null over each hidden file, where a browser would see it. */
async function covered(hidden: readonly string[]): Promise<string[]> {
  const args: string[] = [];
  for (const path of hidden) {
    if (!SYSTEM_TREES.some((tree) => path === tree || path.startsWith(`${tree}/`))) {
      continue;
    }
    const kind = await stat(path).catch(() => undefined);
    if (kind?.isDirectory()) {
      args.push('--tmpfs', path);
    } else if (kind) {
      args.push('--ro-bind', '/dev/null', path);
    }
  }
  return args;
}

/**
 * Whether an unprivileged account can make the sandbox here: bubblewrap installed, and user
 * namespaces allowed. Asked as `nobody` when the server is root (the browsers then run as the
 * Grid's account), else as the server's own user. Undefined when it can.
 */
async function probe(): Promise<string | undefined> {
  if (!(await isExecutable(BWRAP))) {
    return 'bubblewrap is not installed (apt-get install -y bubblewrap, or npm run setup as root)';
  }
  const asAccount = process.getuid?.() === 0 ? [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const args = ['--ro-bind', '/', '/', '--unshare-user', '--unshare-pid', '--die-with-parent', '/bin/true'];
  const [command = BWRAP, ...rest] = [...asAccount, BWRAP, ...args];
  try {
    await run(command, rest, { timeout: 10_000 });
    return undefined;
  } catch (error) {
    return `bubblewrap cannot make a user namespace here (${firstLine(error)}): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container that permits them)`;
  }
}

/** Where each browser's driver names its profile directory, and where the Grid wrote its downloads directory. */
const PROFILES = {
  chromium: [
    'for a in "$@"; do case "$a" in --user-data-dir=*) profile=${a#--user-data-dir=} ;; esac; done',
    `downloads=$(sed -n 's/.*"default_directory":"\\([^"]*\\)".*/\\1/p' "$profile/Default/Preferences" 2>/dev/null | head -n 1)`,
  ],
  firefox: [
    'prev=',
    'for a in "$@"; do [ "$prev" = -profile ] && profile=$a; prev=$a; done',
    `downloads=$(sed -n 's/^user_pref("browser\\.download\\.dir", "\\([^"]*\\)");$/\\1/p' "$profile/user.js" 2>/dev/null | tail -n 1)`,
  ],
} as const;

/**
 * The second stage of a browser's start, after its wrapper (and, as root, after it took the
 * browser group): the browser in its own bubblewrap sandbox (sandbox.ts), seeing of this host only
 * its system trees read-only, its own profile and downloads, its display, and its policies. Every
 * path it binds must be a plain path inside this Grid's work directory (the driver's temporary
 * directory), or it does not start.
 */
export async function sandboxedLauncher(
  path: string,
  workDir: string,
  sandbox: BrowserSandbox,
  browser: { binary: string; profile: keyof typeof PROFILES; policy: { file: string; text: string } },
): Promise<string> {
  const refuse = (why: string) => `echo "selenium-flow: ${why}; refusing to start the browser unsandboxed" >&2; exit 1`;
  const script = [
    '#!/bin/sh',
    // geckodriver asks `--version` first: that opens no page.
    `if [ "$#" = 1 ] && { [ "$1" = --version ] || [ "$1" = -v ]; }; then exec ${browser.binary} "$@"; fi`,
    'profile=',
    ...PROFILES[browser.profile],
    `ours() { case "$1" in ''|*[!A-Za-z0-9._/-]*|*..*) return 1 ;; ${shellWord(workDir)}/?*) return 0 ;; esac; return 1; }`,
    `ours "$profile" && [ -d "$profile" ] || { ${refuse('its profile is not a directory of the Grid')}; }`,
    'ours "$downloads" && [ -d "$downloads" ] || downloads=',
    'SF_DOWNLOADS=${downloads:-/tmp}',
    'display=',
    'if [ -n "$DISPLAY" ]; then',
    '  n=${DISPLAY#:}',
    '  n=${n%%.*}',
    `  case "$n" in ''|*[!0-9]*) ${refuse('its display is not a local one')} ;; esac`,
    `  case "$XAUTHORITY" in ''|*[!A-Za-z0-9._/-]*|*..*) ${refuse('its display has no X authority file')} ;; esac`,
    '  display="--bind /tmp/.X11-unix/X$n /tmp/.X11-unix/X$n --ro-bind $XAUTHORITY $XAUTHORITY"',
    'fi',
    'exec 3<<SELENIUM_FLOW_POLICY',
    browser.policy.text,
    'SELENIUM_FLOW_POLICY',
    'unset SF_ADDR SF_DOWNLOADS',
    [
      `exec ${sandbox.bwrap}`,
      ...sandbox.system.map(shellWord),
      '--bind "$profile" "$profile"',
      '${downloads:+--bind "$downloads" "$downloads"}',
      '$display',
      `--ro-bind-data 3 ${shellWord(browser.policy.file)}`,
      `${browser.binary} "$@"`,
    ].join(' '),
    '',
  ].join('\n');
  await writeFile(path, script, { mode: 0o755 });
  await chmod(path, 0o755);
  return path;
}
