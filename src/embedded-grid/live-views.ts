import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  displayScript,
  liveBrowser,
  untilDisplayReady,
  writeXauthority,
  type LivePorts,
  type LiveView,
} from './displays.js';
import { gridWorkDir, type Launch } from './launch.js';
import { freePort, hasExited, superviseCommand } from './processes.js';

export async function livePortPair(): Promise<LivePorts> {
  return { rfb: await freePort(), websocket: await freePort() };
}

/** One watchable slot's display: Xvfb, x11vnc and websockify in one supervised process group. */
export async function startLiveView(
  launch: Launch,
  kind: { browser: LiveView['browser']; binary: string; driver: string },
  ports: LivePorts,
): Promise<LiveView> {
  const dir = await gridWorkDir('display', launch.account);
  if (launch.account) {
    // As root Xvfb would make it; as the Grid's account it cannot, and then listens on no socket file.
    // mkdir's mode passes through the umask (0022 leaves 1755), and the directory may already exist so.
    await mkdir('/tmp/.X11-unix', { recursive: true });
    await chmod('/tmp/.X11-unix', 0o1777);
  }
  await writeXauthority(join(dir, 'xauth'), launch.account);
  const script = join(dir, 'display.sh');
  await writeFile(script, displayScript(dir, ports), { mode: 0o755 });
  const binary = join(dir, kind.browser === 'firefox' ? 'firefox' : 'chromium');
  await writeFile(binary, liveBrowser(dir, kind.binary), { mode: 0o755 });
  if (launch.account) {
    await chown(script, launch.account.uid, launch.account.gid);
    await chown(binary, launch.account.uid, launch.account.gid);
  }
  const supervised = superviseCommand(launch, dir, '/bin/sh', [script], undefined);
  return {
    browser: kind.browser,
    dir,
    binary,
    driver: kind.driver,
    ports,
    process: supervised,
    ready: untilDisplayReady(dir, ports, () => hasExited(supervised.child), launch.log.text.bind(launch.log)),
  };
}
