import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserKind } from '../grid/capabilities.js';
import { nodeBrowsers } from './browser-wrappers.js';
import { gridToml, routerToml } from './config.js';
import { dockerNodeToml, startDockerNodeDisplay } from './docker-node.js';
import { removeFirewall, type PortRange } from './fence.js';
import type { FenceSetting } from './fence-report.js';
import { gridWorkDir, writePrivate, type Launch } from './launch.js';
import { livePortPair } from './live-views.js';
import type { LivePorts } from './displays.js';
import { gridUrls, prepareLaunch } from './prepare.js';
import { freePort, superviseJava, type SupervisedProcess } from './processes.js';
import { untilGridReady } from './readiness.js';
import { browserSandbox } from './sandbox.js';
import { InstanceNotice } from './neighbours.js';
import { started, withdrawOwn, type EmbeddedGrid } from './start.js';

export interface HubAndNodesOptions {
  /** how many nodes register with the hub (default 1) */
  nodes?: number;
  /** browsers per node (default 4) */
  maxSessions?: number;
  sessionTimeoutSeconds?: number;
  /** the hub's port (default: a free one) */
  port?: number;
  /** Ports on this host the browsers may still open (a site under test). */
  loopbackPorts?: readonly PortRange[];
  /**
   * Each node configured as docker-selenium's node images are (docker-node.ts): one session on a
   * display of its own, VNC behind `vncPassword` (none when undefined), noVNC, the SE_* variables.
   * `browsers` names each node's one browser, as node-chrome and node-firefox images do (default
   * one Chromium node per `nodes`); a Firefox node only where this host runs Firefox.
   */
  dockerSelenium?: {
    vncPassword?: string;
    browsers?: readonly BrowserKind[];
    /** the nodes say their window is locked (as an operator's SE_NODE_STEREOTYPE_EXTRA would): only then watched */
    lockedWindow?: boolean;
  };
  fence?: FenceSetting;
  /** the server's own files: no browser's sandbox shows them (sandbox.ts) */
  hidden?: readonly string[];
  /** what this instance says of itself to the others on this host (start.ts) */
  notice?: InstanceNotice;
}

/**
 * The distributed Grid: a hub and `nodes` nodes, each its own JVM, talking over a loopback
 * event bus (the default binds every interface). Clients talk only to the hub's URL; the
 * nodes' `grid-url` makes the BiDi and VNC addresses they hand out point at the hub too.
 * The hub asks for the credentials; the nodes prove themselves with a registration secret.
 */
export async function startHubAndNodes(options: HubAndNodesOptions = {}): Promise<EmbeddedGrid> {
  const kinds = options.dockerSelenium?.browsers;
  const nodes = kinds?.length ?? options.nodes ?? 1;
  const hubPort = options.port ?? (await freePort());
  const docker = options.dockerSelenium;
  const livePorts = docker ? await Promise.all(Array.from({ length: nodes }, async () => livePortPair())) : [];
  const { sandbox } = await browserSandbox(options.hidden ?? []);
  const notice = options.notice ?? (await InstanceNotice.open());
  const launch = await prepareLaunch(hubPort, {
    loopbackPorts: options.loopbackPorts ?? [],
    livePorts,
    fence: options.fence,
    sandbox,
    notice,
  }).catch(async (error: unknown) => {
    await withdrawOwn(options, notice);
    throw error;
  });
  const { url, address } = gridUrls(hubPort, launch.credentials);
  const registration = ['--registration-secret', randomBytes(24).toString('base64url')];
  const eventBus = [
    '--publish-events',
    `tcp://127.0.0.1:${await freePort()}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${await freePort()}`,
  ];
  const processes: SupervisedProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await launch.proxy?.stop();
    await withdrawOwn(options, notice);
  };
  try {
    // The firewall goes with the hub: it is the last process to stop.
    const hubDir = await gridWorkDir('hub', launch.account);
    const hubConfig = join(hubDir, 'hub.toml');
    await writePrivate(hubConfig, routerToml(launch.credentials), launch.account);
    const hubArgs = [
      'hub',
      '--config',
      hubConfig,
      '--host',
      '127.0.0.1',
      '--port',
      String(hubPort),
      ...eventBus,
      ...registration,
    ];
    processes.push(await superviseJava(launch, hubDir, hubArgs, '-Xmx256m', launch.firewallTable));
    for (let i = 0; i < nodes; i += 1) {
      await startNode(launch, options, i, { address, eventBus, registration, ports: livePorts[i] }, processes);
    }
    await untilGridReady(url, processes, launch.log, nodes);
  } catch (error) {
    await stop();
    await removeFirewall(launch.firewallTable);
    throw error;
  }
  return started(launch, options, { url, address, liveViews: livePorts.length, stop });
}

/** Node i (from 0): its config (a docker-selenium display of its own, or the embedded slots), then its JVM. */
async function startNode(
  launch: Launch,
  options: HubAndNodesOptions,
  i: number,
  hub: { address: string; eventBus: string[]; registration: string[]; ports: LivePorts | undefined },
  processes: SupervisedProcess[],
): Promise<void> {
  const { address, eventBus, registration, ports } = hub;
  const docker = options.dockerSelenium;
  const kinds = docker?.browsers;
  const workDir = await gridWorkDir(`node${i + 1}`, launch.account);
  const configPath = join(workDir, 'node.toml');
  const browsers = await nodeBrowsers(launch, workDir);
  const display = docker && ports ? await startDockerNodeDisplay(launch, ports, docker.vncPassword) : undefined;
  if (display) {
    processes.push(display.process);
  }
  await writeFile(
    configPath,
    display
      ? dockerNodeToml(
          browsers,
          kinds?.[i] ?? 'chrome',
          address,
          display.ports.websocket,
          docker?.lockedWindow === true,
        )
      : gridToml(options.maxSessions ?? 4, browsers, address),
  );
  const args = [
    'node',
    '--config',
    configPath,
    '--host',
    '127.0.0.1',
    '--port',
    String(await freePort()),
    ...eventBus,
    ...registration,
    // docker-selenium's nodes are told their noVNC port by SE_NO_VNC_PORT (7900 there); the flag says it here.
    ...(display ? ['--no-vnc-port', display.env.SE_NO_VNC_PORT ?? ''] : []),
  ];
  args.push('--session-timeout', String(options.sessionTimeoutSeconds ?? 300));
  processes.push(await superviseJava(launch, workDir, args, '-Xmx192m', undefined, display?.env));
}
