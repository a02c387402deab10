import type { PortRange } from './fence.js';
import { describePorts } from './host-addresses.js';
import { GRID_USER } from './account.js';
import type { Launch } from './launch.js';

/** BROWSER_FENCE: 'proxy' (the default) or 'off', the opt-in to run the browsers unfenced. */
export type FenceSetting = 'proxy' | 'off';

/** How a Grid's browsers are fenced off the host they run on: one answer for the banner, /ready, the log and doctor. */
export interface FenceReport {
  /**
   * `proxy`: every connection through the Grid's proxy, which closes this host's ports;
   * `proxy+firewall+user`: the same, plus nftables and an OS user of their own (root);
   * `external`: a Grid this server did not start, fenced (or not) by whoever runs it;
   * `none`: BROWSER_FENCE=off, a page can run programs as the server's user.
   */
  kind: 'proxy' | 'proxy+firewall+user' | 'external' | 'none';
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

/** The report for a Grid at GRID_URL: this server fences nothing there. */
export const EXTERNAL_FENCE: FenceReport = {
  kind: 'external',
  summary: 'external Grid: fence the nodes yourself (docs/security.md)',
};

/**
 * The fence a start with these settings puts in force, without starting anything: what
 * `selenium-flow doctor` reports. A running Grid's own report is `EmbeddedGrid.fence`.
 */
export function describeFence(settings: {
  gridUrl?: string;
  fence?: FenceSetting;
  loopbackPorts?: readonly PortRange[];
  /** defaults to whether this process runs as root */
  root?: boolean;
}): FenceReport {
  if (settings.gridUrl !== undefined) {
    return EXTERNAL_FENCE;
  }
  const root = settings.root ?? process.getuid?.() === 0;
  return fenceReport(
    {
      proxyPort: settings.fence === 'off' ? undefined : 0,
      account: root ? { uid: 0, gid: 0, browserGid: 0 } : undefined,
    },
    settings.loopbackPorts ?? [],
  );
}
