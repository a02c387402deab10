import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chown, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { poll } from '../poll.js';
import { LIVE_VIEW_CAPABILITY, type BrowserKind } from '../grid/capabilities.js';

/**
 * The watchable slots of the embedded Grid (docs/live.md): a display per browser, because one
 * VNC server shows one screen. What runs them is live-views.ts; this module holds what they are.
 */

/** The loopback ports of one display's VNC server (x11vnc) and its websocket bridge (websockify). */
export interface LivePorts {
  rfb: number;
  websocket: number;
}

export interface LiveView {
  /** the one browser this display shows (one VNC server shows one screen, so one browser each) */
  browser: BrowserKind;
  /** the display's own directory: its Xauthority cookie, its number once Xvfb picked one, its scripts */
  dir: string;
  /** what the slot starts as its browser: the display's wrapper */
  binary: string;
  /** the slot's driver (chromedriver, or geckodriver) */
  driver: string;
  ports: LivePorts;
  process: { stop(): Promise<void> };
  /** settles once websockify accepts connections; rejects when the display could not start */
  ready: Promise<void>;
}

const TOOLS = [
  { path: '/usr/bin/Xvfb', debianPackage: 'xvfb' },
  { path: '/usr/bin/x11vnc', debianPackage: 'x11vnc' },
  { path: '/usr/bin/websockify', debianPackage: 'websockify' },
];
const READY_TIMEOUT_MS = 20_000;
const READY_POLL_MS = 100;
/** Large enough for any window an agent may ask (capabilities cap the window size). */
const SCREEN = '1920x1080x24';

/** Why no display can start here (a sentence with the remedy), or undefined when all three tools are present. */
export async function missingLiveViewTools(): Promise<string | undefined> {
  const missing: string[] = [];
  for (const tool of TOOLS) {
    const present = await access(tool.path, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!present) {
      missing.push(tool.debianPackage);
    }
  }
  return missing.length === 0
    ? undefined
    : `This Grid has no live view: install ${missing.join(' ')} (npm run setup, or apt-get install -y ${missing.join(' ')}).`;
}

/**
 * An X authority file with one fresh MIT cookie for any display (family "wild"): without it any
 * local account could open the display, read the screen and type into the browser.
 */
export async function writeXauthority(path: string, account: { uid: number; gid: number } | undefined): Promise<void> {
  const field = (data: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(data.length);
    return Buffer.concat([length, data]);
  };
  const family = Buffer.alloc(2);
  family.writeUInt16BE(0xffff);
  const entry = Buffer.concat([
    family,
    field(Buffer.alloc(0)),
    field(Buffer.alloc(0)),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')),
    field(randomBytes(16)),
  ]);
  await writeFile(path, entry, { mode: 0o600 });
  if (account) {
    await chown(path, account.uid, account.gid);
  }
}

/**
 * Xvfb picks a free display itself (-displayfd: several Grids on one host never collide) and
 * writes its number once it accepts clients; then x11vnc serves it on loopback only, and
 * websockify bridges the node's websocket to it. No password: x11vnc's port is fenced to the
 * Grid's account, and the admin auth in front of the tunnel is the gate (docs/security.md). A
 * docker-selenium-style node (docker-node.ts) passes the password file x11vnc -storepasswd wrote.
 */
export function displayScript(dir: string, ports: LivePorts, passwordFile?: string): string {
  const auth = passwordFile === undefined ? '-nopw' : `-rfbauth '${passwordFile}'`;
  return [
    '#!/bin/sh',
    `cd '${dir}'`,
    `Xvfb -displayfd 3 -screen 0 ${SCREEN} -nolisten tcp -auth '${dir}/xauth' 3>'${dir}/display' &`,
    'xvfb=$!',
    `while [ ! -s '${dir}/display' ]; do kill -0 $xvfb 2>/dev/null || exit 1; sleep 0.05; done`,
    `d=$(cat '${dir}/display')`,
    `x11vnc -display ":$d" -auth '${dir}/xauth' -localhost -rfbport ${ports.rfb} ${auth} -forever -shared -noxdamage -quiet &`,
    `websockify 127.0.0.1:${ports.websocket} 127.0.0.1:${ports.rfb} &`,
    'wait',
    '',
  ].join('\n');
}

/**
 * The watchable slot's browser: on its display, and headed whatever the request says (a
 * headless browser draws nothing to watch: Chromium's --headless…, Firefox's -headless and
 * MOZ_HEADLESS). It hands over to `browser` (the sandboxed wrapper under the Grid's account)
 * with every other argument unchanged.
 */
export function liveBrowser(dir: string, browser: string): string {
  return [
    '#!/bin/sh',
    `DISPLAY=":$(cat '${dir}/display')"`,
    `XAUTHORITY='${dir}/xauth'`,
    'export DISPLAY XAUTHORITY',
    'unset MOZ_HEADLESS',
    'for a in "$@"; do shift; case "$a" in --headless*|-headless) ;; *) set -- "$@" "$a" ;; esac; done',
    `exec ${browser} "$@"`,
    '',
  ].join('\n');
}

/** A slot only a request asking `selenium-flow:liveView: true` matches, with the node's VNC proxy on. */
export function liveViewToml(view: LiveView, index: number, locked: Record<string, true> = {}): string[] {
  const options =
    view.browser === 'firefox'
      ? { 'moz:firefoxOptions': { binary: view.binary } }
      : { 'goog:chromeOptions': { binary: view.binary } };
  const stereotype = JSON.stringify({
    browserName: view.browser,
    ...options,
    [LIVE_VIEW_CAPABILITY]: true,
    ...locked,
    'se:vncEnabled': true,
    // Without a local address the node dials a non-loopback one; noVncPort is required beside it.
    'se:vncLocalAddress': `ws://127.0.0.1:${view.ports.websocket}`,
    'se:noVncPort': view.ports.websocket,
  });
  return [
    '[[node.driver-configuration]]',
    `display-name = "${view.browser === 'firefox' ? 'Firefox' : 'Chromium'} (watchable ${index + 1})"`,
    `webdriver-executable = "${view.driver}"`,
    'max-sessions = 1',
    `stereotype = '${stereotype}'`,
    '',
  ];
}

/** Waits until the display has its number and websockify answers, or its process ended. */
export async function untilDisplayReady(
  dir: string,
  ports: LivePorts,
  exited: () => boolean,
  log: () => string,
): Promise<void> {
  const ready = await poll(
    async () => {
      if (exited()) {
        throw new Error(`A live view's display (Xvfb, x11vnc, websockify) exited before it was ready.\n${log()}`);
      }
      const numbered = (await readFile(join(dir, 'display'), 'utf8').catch(() => '')).trim() !== '';
      return (numbered && (await accepts(ports.websocket))) || undefined;
    },
    READY_TIMEOUT_MS,
    READY_POLL_MS,
  );
  if (ready) {
    return;
  }
  throw new Error(`A live view's display was not ready within ${READY_TIMEOUT_MS / 1000} s.\n${log()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
