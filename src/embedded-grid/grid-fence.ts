import { createServer, type Socket } from 'node:net';
import { fencePlace, type HostPort } from '../fence-settings.js';
import { globMatches } from '../glob.js';
import { fetchGridStatus } from '../grid/status.js';
import type { PortRange } from './fence.js';
import { gridFenceSummary, UNFENCED_GRID, type FenceReport, type FenceSetting } from './fence-report.js';
import { canonical, describePorts, destination, inCidr, isHostAddress, judgedAs, refusal } from './host-addresses.js';
import { instanceRefusal } from './listeners.js';
import { InstanceNotice } from './neighbours.js';
import type { Fence } from './proxy-forward.js';
import { NameResolver, type NameOptions } from './proxy-names.js';
import { closeAll, ConnectionGate, CONNECTIONS_PER_BROWSER, fenceHttp, listen, refuse } from './proxy-server.js';

/**
 * The fence of a Grid this server did not start (GRID_URL): the same proxy as the embedded
 * Grid's (proxy-forward.ts), run by the server where the Grid's nodes reach it (FENCE_LISTEN,
 * FENCE_ADDRESS). The server opens every browser with capabilities that send all its traffic,
 * its own loopback included, through it (grid/capabilities.ts). A node's browser reaches what
 * the proxy reaches, from this server's host: so besides this host's ports (but
 * BROWSER_LOOPBACK_PORTS) and the metadata service it closes what a node's network holds, every
 * private, link-local and reserved address (but FENCE_ALLOW), and the Grid's own addresses, its
 * hub's and every node's, always.
 *
 * A node's browsers all come from its address: their share of the proxy is counted per node,
 * CONNECTIONS_PER_BROWSER for each browser the node runs at once (its maxSessions). Browsers
 * cannot send proxy credentials without a prompt, nor reach a port of their own without one
 * listener per browser, which a Service in front of several replicas could not route: any
 * replica's fence serves any browser.
 */
export interface GridFence {
  /** where the nodes' browsers reach it (the capabilities name it) */
  address: HostPort;
  fence: FenceReport;
  stop(): Promise<void>;
}

export interface GridFenceOptions {
  gridUrl: string;
  listen: HostPort;
  /** where the nodes reach it; default where it listens (a Grid on this host) */
  address?: HostPort;
  loopbackPorts: readonly PortRange[];
  /** FENCE_ALLOW: private host names, addresses and CIDRs the browsers may open */
  allow: readonly string[];
  names?: NameOptions;
  notice: InstanceNotice;
}

/** Not the internet: this network, private, shared (carrier NAT, most clusters), link-local, benchmarking, multicast and reserved; their IPv6 kin. */
const CLOSED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/3',
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];
/** How often the Grid's hub and nodes are looked up again (a node comes, a pod is rescheduled). */
const REFRESH_MS = 10_000;
/** The soonest an unknown client makes the fence ask the Grid again. */
const ASK_AGAIN_MS = 2_000;
const MAX_ADDRESSES = 4_096;

/** Where the Grid is: its addresses off this host, its ports on it, and how many browsers each node runs. */
export class GridEndpoints {
  readonly addresses = new Set<string>();
  readonly hostPorts = new Set<number>();
  private readonly browsersAt = new Map<string, number>();
  private asked = 0;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly gridUrl: string,
    private readonly names: NameResolver,
  ) {}

  /** Browsers the node at `address` runs at once (1 when the Grid did not say). */
  browsers(address: string): number {
    return this.browsersAt.get(address) ?? 1;
  }

  /** Looks the hub and nodes up again, at most every ASK_AGAIN_MS; an answer that fails keeps what was known. */
  refresh(now = Date.now()): Promise<void> {
    if (this.asking === undefined && now - this.asked >= ASK_AGAIN_MS) {
      this.asked = now;
      this.asking = this.lookUp().finally(() => (this.asking = undefined));
    }
    return this.asking ?? Promise.resolve();
  }

  private async lookUp(): Promise<void> {
    const nodes = await fetchGridStatus(this.gridUrl)
      .then((status) => status.nodes ?? [])
      .catch(() => []);
    const places = [
      { uri: this.gridUrl, sessions: 1 },
      ...nodes.map((n) => ({ uri: n.uri ?? '', sessions: n.maxSessions ?? 1 })),
    ];
    for (const { uri, sessions } of places) {
      const url = URL.parse(uri);
      if (!url) {
        continue;
      }
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      const read = destination(url.hostname);
      const resolved =
        'addresses' in read ? read : 'name' in read ? await this.names.resolve(read.name, 'grid') : undefined;
      for (const address of resolved && 'addresses' in resolved ? resolved.addresses : []) {
        if (isHostAddress(address)) {
          this.hostPorts.add(port);
        } else if (this.addresses.size < MAX_ADDRESSES) {
          for (const ip of judgedAs(address)) {
            this.addresses.add(ip);
            this.browsersAt.set(ip, Math.max(1, Math.min(sessions, 64)));
          }
        }
      }
    }
  }
}

/** Whether FENCE_ALLOW opens `ip`, asked for by `name` when by a name. */
function allowedBy(allow: readonly string[], ip: string, name: string | undefined): boolean {
  return allow.some((entry) =>
    /^[\d.]+(\/\d+)?$|:/.test(entry) ? inCidr(ip, entry) : name !== undefined && globMatches(entry, name),
  );
}

/** Why a Grid's browsers may not open `address`:`port` (asked for by `name`), or undefined when they may. */
export function gridFenceRefusal(
  loopbackPorts: readonly PortRange[],
  allow: readonly string[],
  grid: Pick<GridEndpoints, 'addresses' | 'hostPorts'>,
): Fence['refusal'] {
  return (address, port, name) => {
    const host = refusal(address, port, loopbackPorts);
    if (host !== undefined || isHostAddress(address)) {
      return host ?? (grid.hostPorts.has(port) ? `port ${port} of this host is the Grid's` : undefined);
    }
    const judged = judgedAs(address);
    if (judged.some((ip) => grid.addresses.has(ip))) {
      return "that address is the Grid's own (its hub or a node)";
    }
    const closed = judged.filter((ip) => CLOSED_RANGES.some((range) => inCidr(ip, range)));
    return closed.every((ip) => allowedBy(allow, ip, name))
      ? undefined
      : 'that address is on a private network (or link-local, or reserved)';
  };
}

export async function startGridFence(options: GridFenceOptions): Promise<GridFence> {
  const names = new NameResolver(options.names);
  const grid = new GridEndpoints(options.gridUrl, names);
  await grid.refresh();
  const openPorts = describePorts(options.loopbackPorts);
  const allowed = options.allow.length === 0 ? 'none' : options.allow.join(',');
  const fence: Fence = {
    refusal: gridFenceRefusal(options.loopbackPorts, options.allow, grid),
    remedy: `Only the ports in BROWSER_LOOPBACK_PORTS (now: ${openPorts}) of this server's host and the private hosts in FENCE_ALLOW (now: ${allowed}) are open to the Grid's browsers; the Grid's own addresses never.`,
    openPorts,
    names,
    instances: instanceRefusal,
    // A node's browsers all come from its address.
    clientOf: (socket) => canonical(socket.remoteAddress ?? ''),
  };
  const gate = new ConnectionGate(fenceHttp(fence), CONNECTIONS_PER_BROWSER);
  const byNode = new Map<string, Set<Socket>>();
  const server = createServer((socket) => void admit(socket));
  // Only the Grid's own hosts (and this one) may use it: listening beyond loopback, it would
  // otherwise be an open proxy to the internet for anything that reaches the port.
  const admit = async (socket: Socket) => {
    socket.pause();
    socket.on('error', () => socket.destroy());
    const from = fence.clientOf(socket);
    if (!isHostAddress(from) && !grid.addresses.has(from)) {
      await grid.refresh();
    }
    if (!isHostAddress(from) && !grid.addresses.has(from)) {
      refuse(
        socket,
        undefined,
        `Refused by selenium-flow's fence: it serves the Grid's browsers only, and ${from} is none of the Grid's hosts (a node must advertise the address it connects from).`,
      );
      return;
    }
    const held = byNode.get(from) ?? new Set<Socket>();
    byNode.set(from, held);
    gate.admit(socket, held, CONNECTIONS_PER_BROWSER * grid.browsers(from), () => {
      if (held.size === 0) {
        byNode.delete(from);
      }
    });
    socket.resume();
  };
  const port = await listen(server, options.listen.port, options.listen.host.replace(/^\[|\]$/g, ''));
  await options.notice.add({ ports: [port] });
  const timer = setInterval(() => void grid.refresh(), REFRESH_MS);
  timer.unref();
  // Listening on every address (or none given): the Grid on this host reaches it on loopback.
  const unspecified = ['0.0.0.0', '::', '[::]'].includes(options.listen.host);
  const address = options.address ?? { host: unspecified ? '127.0.0.1' : options.listen.host, port };
  const where = `${address.host}:${address.port}`;
  return {
    address,
    fence: { kind: 'grid-proxy', summary: gridFenceSummary(where, options.loopbackPorts, options.allow) },
    stop: async () => {
      clearInterval(timer);
      await closeAll(
        server,
        [...byNode.values()].flatMap((held) => [...held]),
      );
    },
  };
}

/** What serve and stdio run beside a Grid at GRID_URL: its fence (none with BROWSER_FENCE=off), and the notice its own ports go in. */
export interface OutsideGrid {
  fence: FenceReport;
  /** where the fence listens for the nodes; undefined with BROWSER_FENCE=off */
  address?: HostPort;
  notice: InstanceNotice;
  stop(): Promise<void>;
}

/**
 * A Grid on this host by its URL may still run its browsers elsewhere (docker-selenium's image
 * with a published port: the browser's loopback is its container's). Asked once, at start: a node
 * its /status names off this host needs FENCE_ADDRESS. A Grid that does not answer yet is taken
 * at its word.
 */
async function nodesElsewhere(settings: { gridUrl: string; fenceAddress?: HostPort }): Promise<string | undefined> {
  if (settings.fenceAddress !== undefined) {
    return undefined;
  }
  const nodes = await fetchGridStatus(settings.gridUrl)
    .then((status) => status.nodes ?? [])
    .catch(() => []);
  const away = nodes.find((node) => {
    const read = destination(URL.parse(node.uri ?? '')?.hostname ?? 'localhost');
    return 'name' in read || ('addresses' in read && !read.addresses.every(isHostAddress));
  });
  return away === undefined
    ? undefined
    : `GRID_URL's Grid runs a node at ${URL.parse(away.uri ?? '')?.host ?? 'another address'}, whose browsers cannot reach this host's loopback: set FENCE_ADDRESS to the address they reach this server at (host:port; host.docker.internal:4445 for Docker Desktop, the bridge's gateway such as 172.17.0.1:4445 on Linux), or set BROWSER_FENCE=off to leave their browsers unfenced`;
}

/** The fence for a Grid at GRID_URL, as the settings place it; throws the remedy where they cannot. */
export async function fenceForGrid(settings: {
  gridUrl: string;
  browserFence: FenceSetting;
  browserLoopbackPorts: readonly PortRange[];
  fenceListen?: HostPort;
  fenceAddress?: HostPort;
  fenceAllow: readonly string[];
}): Promise<OutsideGrid> {
  const notice = await InstanceNotice.open();
  if (settings.browserFence === 'off') {
    return { fence: UNFENCED_GRID, notice, stop: () => notice.withdraw() };
  }
  const place = fencePlace(settings);
  const elsewhere = 'missing' in place ? place.missing : await nodesElsewhere(settings);
  if (elsewhere !== undefined || 'missing' in place) {
    await notice.withdraw();
    throw new Error(`${elsewhere}.`);
  }
  const running = await startGridFence({
    gridUrl: settings.gridUrl,
    listen: place.listen,
    address: place.address,
    loopbackPorts: settings.browserLoopbackPorts,
    allow: settings.fenceAllow,
    notice,
  }).catch(async (error: unknown) => {
    await notice.withdraw();
    throw new Error(
      `Cannot fence the Grid's browsers: the fence did not start (${error instanceof Error ? error.message : String(error)}). Free FENCE_LISTEN's port or set another, or set BROWSER_FENCE=off to run them unfenced.`,
    );
  });
  return {
    fence: running.fence,
    address: running.address,
    notice,
    stop: async () => {
      await running.stop();
      await notice.withdraw();
    },
  };
}
