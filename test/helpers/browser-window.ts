import { execFile } from 'node:child_process';
import type { BrowserKind } from '../../src/grid/capabilities.js';
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/**
 * A person at a watchable browser's own window, as X input on its display (xdotool): what the
 * person in Control, or anyone who reaches the display, can type and click — the address bar,
 * the browser's shortcuts, its dialogs. And what that browser can see of this machine, read from
 * outside its sandbox (/proc/<pid>/root).
 */

const run = promisify(execFile);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BrowserDisplay {
  /** DISPLAY, e.g. ":2" */
  display: string;
  xauthority: string;
}

/** The display whose window shows `title` (a unique page title the test gave the page), among the Grids' displays. */
export async function displayShowing(title: string): Promise<BrowserDisplay> {
  // The window manager hears a new title a moment after the page has it, later on a loaded machine.
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await pause(250)) {
    const screen = await displayWith(title);
    if (screen) {
      return screen;
    }
  }
  throw new Error(`No display shows a window titled ${title}; the displays show: ${await windowNames()}.`);
}

/**
 * Every display's windows (name and geometry), pointer and focus: for a failure of input through
 * VNC to say what the screen was like.
 */
export async function displaysSeen(): Promise<string> {
  const seen: string[] = [];
  for (const entry of (await readdir(tmpdir())).filter((e) => e.startsWith('selenium-flow-display-'))) {
    const dir = join(tmpdir(), entry);
    const number = (await readFile(join(dir, 'display'), 'utf8').catch(() => '')).trim();
    const env = xEnv({ display: `:${number}`, xauthority: join(dir, 'xauth') });
    const said = async (command: string, args: string[]) =>
      (await run(command, args, { env }).catch(() => ({ stdout: '?' }))).stdout.trim();
    const windows = (await said('xwininfo', ['-root', '-tree']))
      .split('\n')
      .flatMap(
        (line) => /^\s+0x[0-9a-f]+ "([^"]+)":.* (\d+x\d+\+-?\d+\+-?\d+)/.exec(line)?.slice(1, 3).join(' ') ?? [],
      );
    const pointer = await said('xdotool', ['getmouselocation']);
    const focus = await said('xdotool', ['getwindowfocus', 'getwindowname']);
    seen.push(`:${number} [${windows.join(' | ')}] pointer ${pointer}, focus ${focus}`);
  }
  return seen.join('; ') || 'no display at all';
}

/** Every display's window names, for a failure to say what it saw instead. */
async function windowNames(): Promise<string> {
  const seen: string[] = [];
  for (const entry of (await readdir(tmpdir())).filter((e) => e.startsWith('selenium-flow-display-'))) {
    const dir = join(tmpdir(), entry);
    const number = (await readFile(join(dir, 'display'), 'utf8').catch(() => '')).trim();
    const screen = { display: `:${number}`, xauthority: join(dir, 'xauth') };
    const ids = await windowsMatching(screen, '.');
    const names = await Promise.all(
      ids.map(async (id) => {
        const named = await run('xdotool', ['getwindowname', id], { env: xEnv(screen) }).catch(() => ({ stdout: '' }));
        return named.stdout.trim();
      }),
    );
    seen.push(`:${number} [${names.filter(Boolean).join(' | ')}]`);
  }
  return seen.join('; ') || 'no display at all';
}

async function displayWith(title: string): Promise<BrowserDisplay | undefined> {
  const root = tmpdir();
  for (const entry of await readdir(root)) {
    if (!entry.startsWith('selenium-flow-display-')) {
      continue;
    }
    const dir = join(root, entry);
    const number = (await readFile(join(dir, 'display'), 'utf8').catch(() => '')).trim();
    if (!/^\d+$/.test(number)) {
      continue;
    }
    const screen = { display: `:${number}`, xauthority: join(dir, 'xauth') };
    if ((await windowsMatching(screen, title)).length > 0) {
      return screen;
    }
  }
  return undefined;
}

async function windowsMatching(screen: BrowserDisplay, title: string): Promise<string[]> {
  const found = await run('xdotool', ['search', '--name', title], { env: xEnv(screen) }).catch(() => ({ stdout: '' }));
  return found.stdout.split('\n').filter(Boolean);
}

function xEnv(screen: BrowserDisplay): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, DISPLAY: screen.display, XAUTHORITY: screen.xauthority };
}

/** Keys and text as a person types them on the browser's display. */
export async function press(screen: BrowserDisplay, ...keys: string[]): Promise<void> {
  await run('xdotool', ['key', '--delay', '60', ...keys], { env: xEnv(screen) });
}

export async function typeOn(screen: BrowserDisplay, text: string): Promise<void> {
  await run('xdotool', ['type', '--delay', '20', text], { env: xEnv(screen) });
}

/** Goes to an address the way a person does: the address bar, typed, Enter. */
export async function visit(screen: BrowserDisplay, address: string): Promise<void> {
  await press(screen, 'ctrl+l');
  await pause(300);
  await typeOn(screen, address);
  await press(screen, 'Return');
  await pause(2_000);
}

/** The names of the display's top-level windows that have one: a dialog or a devtools window shows here. */
export async function namedWindows(screen: BrowserDisplay): Promise<string[]> {
  const { stdout } = await run('xwininfo', ['-root', '-tree'], { env: xEnv(screen) });
  return stdout
    .split('\n')
    .flatMap((line) => /^\s+0x[0-9a-f]+ "([^"]*)":/.exec(line)?.[1] ?? [])
    .filter((name) => name !== '');
}

/**
 * Does `act`, then waits: no window may appear that was not there (a file chooser, a save dialog,
 * devtools). Escape afterwards, so a dialog that did open is not left for the next step.
 */
export async function opensNoWindow(screen: BrowserDisplay, what: string, act: () => Promise<void>): Promise<void> {
  const before = new Set(await namedWindows(screen));
  await act();
  await pause(2_500);
  const after = await namedWindows(screen);
  await press(screen, 'Escape');
  expect(
    after.filter((name) => !before.has(name) && !isBrowserWindow(name)),
    what,
  ).toEqual([]);
}

/** The browser's own windows change their names with the page's title; dialogs and devtools do not end so. */
function isBrowserWindow(name: string): boolean {
  return / - Chromium$| — Mozilla Firefox$|^Mozilla Firefox$|^Chromium$|^Firefox$|^chromium$/.test(name);
}

/** A screenshot of the display's top-left corner (the browser opens there), for a person to look at. */
export async function screenshot(screen: BrowserDisplay, path: string): Promise<void> {
  await run('sh', ['-c', `xwd -root -silent | convert xwd:- -crop 1280x900+0+0 -resize 60% '${path}'`], {
    env: xEnv(screen),
  });
}

export interface SandboxView {
  pid: number;
  /** the browser's profile directory, as its driver named it */
  profile: string;
  /** whether a path of this host exists in the browser's view of the file system */
  sees(path: string): Promise<boolean>;
  /** the entries of a directory as the browser sees it (none when it sees no such directory) */
  list(path: string): Promise<string[]>;
}

/** The browser on this display, and this machine as it sees it (its mount namespace's root). */
export async function sandboxOf(screen: BrowserDisplay): Promise<SandboxView> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    const [binary = ''] = args;
    if (!/\/(chromium|firefox-esr)$/.test(binary) || args.some((a) => a.startsWith('--type='))) {
      continue;
    }
    const environment = (await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '')).split('\0');
    if (!environment.includes(`XAUTHORITY=${screen.xauthority}`)) {
      continue;
    }
    const profile =
      args.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length) ??
      args[args.indexOf('-profile') + 1];
    const root = `/proc/${entry}/root`;
    if (!profile || (await readlink(root).catch(() => '')) === undefined) {
      continue;
    }
    return {
      pid: Number(entry),
      profile,
      sees: async (path) => (await stat(join(root, path)).catch(() => undefined)) !== undefined,
      list: async (path) => (await readdir(join(root, path)).catch(() => [])).sort(),
    };
  }
  throw new Error(`No browser runs on display ${screen.display}.`);
}

/** Where each browser's internal pages, and the machine's files, would be reached from its address bar. */
const BLOCKED = {
  chrome: [
    'file:///etc/passwd',
    'view-source:file:///etc/passwd',
    'chrome://version',
    'chrome://settings',
    'chrome://policy',
    'devtools://devtools/bundled/inspector.html',
  ],
  firefox: [
    'file:///etc/passwd',
    'view-source:file:///etc/passwd',
    'about:config',
    'about:profiles',
    'about:support',
    'about:addons',
  ],
} as const;

/** The shortcuts that open the machine's file dialogs and the browser's devtools. */
const SHORTCUTS = {
  chrome: ['ctrl+o', 'ctrl+s', 'F12', 'ctrl+shift+i', 'ctrl+shift+j'],
  firefox: ['ctrl+o', 'ctrl+s', 'F12', 'ctrl+shift+i', 'ctrl+shift+k', 'ctrl+shift+j'],
} as const;

type Call = (
  path: string,
  body?: unknown,
  method?: string,
) => Promise<{ status: number; body: Record<string, unknown> }>;

/** A caller of a server with a token: POST with a body, else GET (or the method given), in a workspace when named. */
function caller(base: string, token: string, workspace?: string): Call {
  return async (path, body, method = body === undefined ? 'GET' : 'POST') => {
    const response = await fetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(workspace ? { 'x-workspace': workspace } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

export interface WindowAttack {
  browser: BrowserKind;
  /** the server, and the agent's and a person's (admin) tokens */
  base: string;
  agentToken: string;
  adminToken: string;
  /** the fixture site, on an allowed loopback port */
  site: string;
  /** a loopback port nothing allows the browsers, where something listens */
  closedPort: number;
  /** the server's own files: none may be in the browser's view */
  serversFiles: readonly string[];
  /** where to save what the display shows at the end, for docs/ */
  picture?: string;
}

/**
 * A person holds Control of a watchable browser and tries, through its own window, each way to
 * the machine: the page's file input, the file dialogs' shortcuts, devtools, and the address bar
 * to files and internal pages. None opens; the agent reads each page as blocked; after the
 * hand-back the fence still holds; and the browser's own view of the machine holds its profile,
 * its downloads and the system's programs — no other browser's profile, no Grid configuration,
 * none of the server's files.
 */
export async function attackThroughTheWindow(attack: WindowAttack): Promise<void> {
  const workspace = `window-${attack.browser}`;
  const agent = caller(attack.base, attack.agentToken, workspace);
  const admin = caller(attack.base, attack.adminToken);
  expect((await agent('/browser/open-session', { browser: attack.browser })).status).toBe(200);
  try {
    await attackAs({ ...attack, workspace }, agent, admin);
  } finally {
    await agent('/browser/end-browser', {});
  }
}

async function attackAs(attack: WindowAttack & { workspace: string }, agent: Call, admin: Call): Promise<void> {
  const { browser } = attack;
  const title = `window-attack-${browser}-${Date.now()}`;
  expect((await agent('/browser/navigate', { url: `${attack.site}/upload.html` })).status).toBe(200);
  expect(
    (await agent('/browser/execute-script', { script: `document.title = ${JSON.stringify(title)};` })).status,
  ).toBe(200);
  expect((await agent('/browser/interact', { action: 'focus', selector: { css: '#file' } })).status).toBe(200);
  const status = await admin(`/admin/api/workspaces/${attack.workspace}/live`);
  expect(status.body, JSON.stringify(status.body)).toMatchObject({ watchable: true });
  const screen = await displayShowing(title);
  // Keys go to the window under the pointer (the display has no window manager).
  await run('xdotool', ['mousemove', '640', '500'], { env: xEnv(screen) });
  const taken = await admin(`/admin/api/workspaces/${attack.workspace}/control`, { who: 'Kelly' });
  expect(taken.body, JSON.stringify(taken.body)).toMatchObject({ state: 'held' });
  try {
    await opensNoWindow(screen, "Space on the page's file input", () => press(screen, 'space'));
    for (const keys of SHORTCUTS[browser]) {
      await opensNoWindow(screen, keys, () => press(screen, keys));
      // Chromium says "DevTools not allowed on this page" in the tab: Enter closes it.
      await press(screen, 'Return');
    }
    for (const address of BLOCKED[browser]) {
      await opensNoWindow(screen, address, () => visit(screen, address));
      const page = await agent('/browser/extract', { selector: { css: 'html' }, what: 'html' });
      expect(page.status, `${address}: ${JSON.stringify(page.body)}`).toBe(200);
      const html = JSON.stringify(page.body);
      expect(html, address).toMatch(/blocked/i);
      expect(html, address).not.toContain('root:x:0:0');
    }
    if (attack.picture) {
      await visit(screen, BLOCKED[browser][2]);
      await screenshot(screen, attack.picture);
    }
  } finally {
    await admin(`/admin/api/workspaces/${attack.workspace}/control`, { who: 'Kelly' }, 'DELETE');
  }
  // The person's attempts changed nothing of the fence: a port nobody allowed stays closed.
  const refused = await agent('/browser/navigate', { url: `http://127.0.0.1:${attack.closedPort}/` });
  expect(refused.status, JSON.stringify(refused.body)).toBe(502);
  expect(JSON.stringify(refused.body)).toContain('BROWSER_LOOPBACK_PORTS');

  const view = await sandboxOf(screen);
  const workDir = view.profile.slice(0, view.profile.lastIndexOf('/'));
  expect(await view.sees(view.profile), 'its own profile').toBe(true);
  expect(await view.sees(join(workDir, 'grid.toml')), "the Grid's configuration").toBe(false);
  // Its profile, and the directory its downloads go to: no other browser's profile or downloads.
  // Anything else it sees there it made itself (Chromium's scoped_dir), in its own /tmp, not on the host.
  const seen = await view.list(workDir);
  expect(seen, 'the Grid work directory as the browser sees it').toContain(view.profile.slice(workDir.length + 1));
  const onHost = new Set(await readdir(workDir));
  const shared = seen.filter((entry) => onHost.has(entry));
  expect(shared.length, shared.join(', ')).toBeLessThanOrEqual(2);
  for (const path of [...attack.serversFiles, '/root', '/home']) {
    expect(await view.sees(path), path).toBe(false);
  }
}

/** The page heard `expected` through VNC within 10 s; else the failure says what the displays showed. */
export async function heardIs(
  heard: () => Promise<string[]>,
  expected: string[],
  context: () => Promise<string> = () => Promise.resolve(''),
): Promise<void> {
  try {
    await expect.poll(heard, { timeout: 10_000 }).toEqual(expected);
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; the displays: ${await displaysSeen()}; ${await context()}`,
      {
        cause: error,
      },
    );
  }
}
