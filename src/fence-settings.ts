import { isIP } from 'node:net';
import { z } from 'zod';
import { setting, type Command, type Setting } from './setting.js';

/**
 * The fence's settings, one entry each of SETTINGS (src/settings.ts spreads them in: --help, the
 * README's table and the config file see them there), kept here with their rules. The fence is
 * the proxy every browser the server opens goes through, on the embedded Grid and on any other
 * (docs/security.md, "What the fence covers on each Grid").
 */

const FENCED: readonly Command[] = ['serve', 'stdio', 'grid', 'doctor'];
const SERVED: readonly Command[] = ['serve', 'stdio', 'doctor'];

/** A host and port as an address carries them: `name:4445`, `10.0.0.5:4445`, `[fd00::5]:4445`. */
export interface HostPort {
  host: string;
  port: number;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):(\d{1,5})$/;

function hostPort(example: string, lowest: number) {
  return z
    .string()
    .regex(HOST_PORT, `must be a host and port such as ${example}`)
    .transform((text): HostPort => {
      const [, host = '', port = ''] = HOST_PORT.exec(text) ?? [];
      return { host, port: Number(port) };
    })
    .refine(
      (hp) => hp.port >= lowest && hp.port <= 65_535,
      `must name a port from ${lowest} to 65535, such as ${example}`,
    );
}

/** One FENCE_ALLOW entry: a CIDR, an IP address, or a host name (`*` any run of labels' characters). */
function allowEntry(entry: string): boolean {
  const [address = '', bits, extra] = entry.split('/');
  if (bits !== undefined) {
    const family = isIP(address);
    const width = family === 4 ? 32 : family === 6 ? 128 : 0;
    return extra === undefined && family !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= width;
  }
  return isIP(address) !== 0 || /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry);
}

export const FENCE_SETTINGS = {
  browserLoopbackPorts: setting({
    env: 'BROWSER_LOOPBACK_PORTS',
    usedBy: FENCED,
    help: "ports of this server's host the browsers may still open through the fence (e.g. 3000,5173,8000-8010; never PORT, nor any port of a selenium-flow instance)",
    defaultText: 'none',
    schema: z
      .string()
      .regex(
        /^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/,
        'must be ports or ranges separated by commas, such as 3000,5173,8000-8010',
      )
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .filter((p) => p !== '')
          .map((p) => {
            const [from = 0, to = from] = p.split('-').map(Number);
            return { from, to };
          }),
      )
      .refine(
        (ranges) => ranges.every((r) => r.from >= 1 && r.to <= 65535 && r.from <= r.to),
        'must hold ports from 1 to 65535, each range low-high',
      ),
  }),
  browserFence: setting({
    env: 'BROWSER_FENCE',
    usedBy: FENCED,
    help: "proxy: every browser the server opens, on the embedded Grid or GRID_URL's, reaches the network only through the server's fence; off: no fence, a page can run programs where its browser runs (docs/security.md)",
    schema: z.enum(['proxy', 'off'], { error: 'must be "proxy" or "off"' }).default('proxy'),
  }),
  fenceListen: setting({
    env: 'FENCE_LISTEN',
    usedBy: SERVED,
    help: "with GRID_URL: where the fence the Grid's browsers go through listens (host:port)",
    defaultText: "0.0.0.0 on FENCE_ADDRESS's port, else 127.0.0.1 on a free port",
    schema: hostPort('0.0.0.0:4445', 0).optional(),
  }),
  fenceAddress: setting({
    env: 'FENCE_ADDRESS',
    usedBy: SERVED,
    help: "with GRID_URL: the address the Grid's nodes reach this server's fence at (host:port, e.g. selenium-flow:4445); required unless the Grid is on this host",
    defaultText: 'where FENCE_LISTEN listens, for a Grid on this host',
    schema: hostPort('selenium-flow:4445', 1).optional(),
  }),
  fenceAllow: setting({
    env: 'FENCE_ALLOW',
    usedBy: SERVED,
    help: "with GRID_URL: private hosts the browsers may open through the fence (a site under test): comma-separated names (*.corp.example), addresses or CIDRs (10.20.0.0/16); the Grid's own never",
    defaultText: 'none',
    schema: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((item) => item.trim().toLowerCase())
          .filter((item) => item !== ''),
      )
      .pipe(
        z
          .array(
            z
              .string()
              .refine(
                allowEntry,
                'must list host names (*.corp.example), addresses or CIDRs (10.20.0.0/16), comma-separated',
              ),
          )
          .max(256),
      ),
  }),
} satisfies Record<string, Setting<unknown>>;

/** Where the fence of a Grid at GRID_URL listens, and the address its nodes reach it at (unknown until it listens on a free port). */
export type FencePlace = { listen: HostPort; address?: HostPort } | { missing: string };

/** A Grid whose URL names this host: its nodes reach the fence on loopback. */
function onThisHost(gridUrl: string): boolean {
  const host = URL.parse(gridUrl)?.hostname.replace(/^\[|\]$/g, '') ?? '';
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * FENCE_LISTEN and FENCE_ADDRESS, each defaulting from the other; a Grid elsewhere needs
 * FENCE_ADDRESS, since only its operator knows how its nodes reach this server.
 */
export function fencePlace(settings: { gridUrl: string; fenceListen?: HostPort; fenceAddress?: HostPort }): FencePlace {
  const { gridUrl, fenceListen, fenceAddress } = settings;
  const listen =
    fenceListen ?? (fenceAddress ? { host: '0.0.0.0', port: fenceAddress.port } : { host: '127.0.0.1', port: 0 });
  if (fenceAddress !== undefined || onThisHost(gridUrl)) {
    return { listen, ...(fenceAddress ? { address: fenceAddress } : {}) };
  }
  return {
    missing:
      "GRID_URL's nodes run on another host, and FENCE_ADDRESS is not set: set it to the address they reach this server's fence at (host:port, e.g. selenium-flow:4445; FENCE_LISTEN says where it listens), or set BROWSER_FENCE=off to leave their browsers unfenced",
  };
}
