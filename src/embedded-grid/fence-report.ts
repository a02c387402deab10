import type { PortRange } from './fence.js';
import { describePorts } from './host-addresses.js';
import { GRID_USER } from './account.js';
import type { Launch } from './launch.js';
import { fencePlace, type HostPort } from '../fence-settings.js';

/** BROWSER_FENCE: 'proxy' (the default) or 'off', the opt-in to run the browsers unfenced. */
export type FenceSetting = 'proxy' | 'off';

/** How a Grid's browsers are fenced off the host they run on: one answer for the banner, /ready, the log and doctor. */
export interface FenceReport {
  /**
   * `proxy`: every connection through the Grid's proxy, which closes this host's ports;
   * `proxy+firewall+user`: the same, plus nftables and an OS user of their own (root);
   * `grid-proxy`: a Grid this server did not start (GRID_URL), its browsers sent through the server's fence;
   * `none`: BROWSER_FENCE=off, a page can run programs where its browser runs.
   */
  kind: 'proxy' | 'proxy+firewall+user' | 'grid-proxy' | 'none';
  /** one line for a person, e.g. "proxy (host ports closed but 3000)" */
  summary: string;
}

function closedBut(loopbackPorts: readonly PortRange[]): string {
  const open = describePorts(loopbackPorts);
  return open === 'none' ? 'every host port closed' : `host ports closed but ${open}`;
}

export function fenceReport(
  launch: Pick<Launch, 'proxyPort' | 'account'>,
  loopbackPorts: readonly PortRange[],
): FenceReport {
  if (launch.proxyPort === undefined) {
    return {
      kind: 'none',
      summary: 'NONE (BROWSER_FENCE=off): a page can run programs as you',
    };
  }
  if (launch.account !== undefined) {
    return {
      kind: 'proxy+firewall+user',
      summary: `proxy + firewall + own OS user ${GRID_USER} (${closedBut(loopbackPorts)})`,
    };
  }
  return { kind: 'proxy', summary: `proxy (${closedBut(loopbackPorts)})` };
}

/** The line for a Grid at GRID_URL whose browsers go through this server's fence at `where`. */
export function gridFenceSummary(where: string, loopbackPorts: readonly PortRange[], allow: readonly string[]): string {
  const open = describePorts(loopbackPorts);
  const host = open === 'none' ? 'every port of this host closed' : `this host's ports closed but ${open}`;
  const allowed = allow.length === 0 ? 'none' : allow.join(',');
  return `proxy at ${where} for the Grid's browsers (${host}; private networks closed but ${allowed}; the Grid's own closed)`;
}

/** BROWSER_FENCE=off with GRID_URL: the nodes' browsers reach all their node does. */
export const UNFENCED_GRID: FenceReport = {
  kind: 'none',
  summary: "NONE (BROWSER_FENCE=off): a page can reach its node's chromedriver and run programs there",
};

/**
 * The fence a start with these settings puts in force, without starting anything: what
 * `selenium-flow doctor` reports. A running Grid's own report is `EmbeddedGrid.fence`, a
 * running fence's `GridFence.report`.
 */
export function describeFence(settings: {
  gridUrl?: string;
  fence?: FenceSetting;
  loopbackPorts?: readonly PortRange[];
  fenceListen?: HostPort;
  fenceAddress?: HostPort;
  allow?: readonly string[];
  /** defaults to whether this process runs as root */
  root?: boolean;
}): FenceReport & { missing?: string } {
  const loopbackPorts = settings.loopbackPorts ?? [];
  if (settings.gridUrl !== undefined) {
    if (settings.fence === 'off') {
      return UNFENCED_GRID;
    }
    const place = fencePlace({ ...settings, gridUrl: settings.gridUrl });
    if ('missing' in place) {
      return { kind: 'none', summary: `NONE: ${place.missing}`, missing: place.missing };
    }
    const where = place.address ?? place.listen;
    const shown = `${where.host}:${where.port === 0 ? '<a free port>' : where.port}`;
    return { kind: 'grid-proxy', summary: gridFenceSummary(shown, loopbackPorts, settings.allow ?? []) };
  }
  const root = settings.root ?? process.getuid?.() === 0;
  return fenceReport(
    {
      proxyPort: settings.fence === 'off' ? undefined : 0,
      account: root ? { uid: 0, gid: 0 } : undefined,
    },
    loopbackPorts,
  );
}
