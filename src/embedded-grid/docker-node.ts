import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { displayScript, untilDisplayReady, writeXauthority, type LivePorts } from './displays.js';
import { gridWorkDir, type Launch } from './launch.js';
import type { BrowserKind } from '../grid/capabilities.js';
import { lockedWindow, type NodeBrowsers } from './config.js';
import { CHROMEDRIVER } from './paths.js';
import { hasExited, superviseCommand, type SupervisedProcess } from './processes.js';

/**
 * A node configured the way docker-selenium's node images configure theirs (NodeBase/Dockerfile,
 * generate_config, start-xvfb.sh, start-vnc.sh, start-novnc.sh): its own Xvfb display, x11vnc
 * behind docker-selenium's VNC password, a websocket bridge on the noVNC port, and the Grid node
 * told by the SE_START_* variables, as there, that it has a screen to show. The Grid (not we)
 * then advertises se:vncEnabled and se:noVncPort and proxies /session/<id>/se/vnc. The tests run
 * it from the jar; deploy/ ships the same settings (test/unit/deploy.test.ts ties them).
 */

/** The settings a watchable docker-selenium node has in common with ours (docker-compose.yaml, deploy/kubernetes). */
export const WATCHABLE_NODE_ENV = {
  SE_START_XVFB: 'true',
  SE_START_VNC: 'true',
  SE_START_NO_VNC: 'true',
  // One browser per display: a VNC screen shows every window of its display on top of one another.
  SE_NODE_MAX_SESSIONS: '1',
  SE_NODE_OVERRIDE_MAX_SESSIONS: 'false',
} as const;

/** docker-selenium's VNC password when none is set (NodeBase/Dockerfile: x11vnc -storepasswd secret). */
export const DOCKER_SELENIUM_VNC_PASSWORD = 'secret';

export interface DockerNodeDisplay {
  ports: LivePorts;
  process: SupervisedProcess;
  /** what the node's JVM needs in its environment: the display, and the SE_* variables that advertise it */
  env: Record<string, string>;
}

const run = promisify(execFile);

/** Starts the node's display, VNC and noVNC bridge; settles once the bridge accepts connections. */
export async function startDockerNodeDisplay(
  launch: Launch,
  ports: LivePorts,
  vncPassword: string | undefined,
): Promise<DockerNodeDisplay> {
  const dir = await gridWorkDir('display', launch.account);
  if (launch.account) {
    // As in live-views.ts: Xvfb under the Grid's account cannot make its socket directory itself.
    await mkdir('/tmp/.X11-unix', { recursive: true });
    await chmod('/tmp/.X11-unix', 0o1777);
  }
  await writeXauthority(join(dir, 'xauth'), launch.account);
  let passwordFile: string | undefined;
  if (vncPassword !== undefined) {
    // As start-vnc.sh does (x11vnc -storepasswd), into a file only the Grid's account reads.
    passwordFile = join(dir, 'vncpasswd');
    await run('x11vnc', ['-storepasswd', vncPassword, passwordFile]);
    if (launch.account) {
      await chown(passwordFile, launch.account.uid, launch.account.gid);
    }
  }
  const script = join(dir, 'display.sh');
  await writeFile(script, displayScript(dir, ports, passwordFile), { mode: 0o755 });
  if (launch.account) {
    await chown(script, launch.account.uid, launch.account.gid);
  }
  const process = superviseCommand(launch, dir, '/bin/sh', [script], undefined);
  try {
    await untilDisplayReady(dir, ports, () => hasExited(process.child), launch.log.text.bind(launch.log));
  } catch (error) {
    await process.stop();
    throw error;
  }
  const display = (await readFile(join(dir, 'display'), 'utf8')).trim();
  return {
    ports,
    process,
    env: {
      ...WATCHABLE_NODE_ENV,
      SE_VNC_PORT: String(ports.rfb),
      SE_NO_VNC_PORT: String(ports.websocket),
      DISPLAY: `:${display}`,
      XAUTHORITY: join(dir, 'xauth'),
    },
  };
}

/**
 * The node's config as generate_config writes it for one browser, plus what this host needs
 * that the image has built in: the driver's path (the image finds it on its PATH), no Selenium
 * Manager (offline), the VNC bridge's loopback address, managed downloads on (the server asks for them; docker-selenium's
 * SE_NODE_ENABLE_MANAGED_DOWNLOADS).
 */
export function dockerNodeToml(
  browsers: NodeBrowsers,
  kind: BrowserKind,
  hubUrl: string,
  noVncPort: number,
  lockedWindowSaid: boolean,
): string {
  const firefox = browsers.firefox;
  if (kind === 'firefox' && !firefox) {
    throw new Error('This host runs no Firefox (firefox-esr and geckodriver): it cannot start a Firefox node.');
  }
  const options =
    kind === 'firefox'
      ? { 'moz:firefoxOptions': { binary: firefox?.binary } }
      : { 'goog:chromeOptions': { binary: browsers.chromium } };
  const stereotype = JSON.stringify({
    browserName: kind,
    platformName: 'Linux',
    ...options,
    'se:containerName': '',
    // The one departure: in a container noVNC listens on every interface of the container and the
    // node dials the container's address; on this host it listens on loopback only, so say where.
    'se:vncLocalAddress': `ws://127.0.0.1:${noVncPort}`,
    // What an operator adds with SE_NODE_STEREOTYPE_EXTRA once the node runs its browsers in
    // selenium-flow's sandbox; a stock image says nothing, and its browsers are never watched.
    ...(lockedWindowSaid ? lockedWindow(browsers) : {}),
  });
  return [
    '[node]',
    `grid-url = "${hubUrl}"`,
    'session-timeout = "300"',
    `override-max-sessions = ${WATCHABLE_NODE_ENV.SE_NODE_OVERRIDE_MAX_SESSIONS}`,
    'detect-drivers = false',
    'drain-after-session-count = 0',
    `max-sessions = ${WATCHABLE_NODE_ENV.SE_NODE_MAX_SESSIONS}`,
    'selenium-manager = false',
    'enable-managed-downloads = true',
    '',
    '[[node.driver-configuration]]',
    `display-name = "${kind}"`,
    `webdriver-executable = "${kind === 'firefox' ? firefox?.geckodriver : CHROMEDRIVER}"`,
    `stereotype = '${stereotype}'`,
    `max-sessions = ${WATCHABLE_NODE_ENV.SE_NODE_MAX_SESSIONS}`,
    '',
  ].join('\n');
}
