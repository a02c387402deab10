import type { BidiEndpoint } from '../../grid/grid.js';
import type { Grid } from '../../grid/grid.js';
import type { LogLines } from '../../ops/log.js';
import type { Workspaces } from '../../workspace/workspaces.js';
import { connectBidi, type BidiConnection } from './bidi.js';
import { connectBidiOverCdp, devtoolsMessageCap } from './bidi-over-cdp.js';
import { NetworkCapture } from './capture.js';
import { BidiMonitors } from './monitor.js';
import type { NetworkLog } from './network-log.js';

/** What the BiDi monitor serves the call path: the monitors and the reasons built on them. */
export interface Monitoring {
  monitors: BidiMonitors;
  capture: NetworkCapture;
  /** where a browser's BiDi is on the Grid, from its recorded capabilities */
  bidiAddress(capabilities: Record<string, unknown> | undefined): BidiEndpoint | undefined;
  close(): Promise<void>;
}

// A Grid that accepts the connection but never upgrades it must not hold a call for long.
const HANDSHAKE_MS = 10_000;

/** A browser's BiDi connection, over the wire its endpoint names; `bodyBytes` bounds a Chromium's messages. */
export function openBidi(endpoint: BidiEndpoint, bodyBytes: number, timeoutMs = HANDSHAKE_MS): Promise<BidiConnection> {
  return endpoint.via === 'cdp'
    ? connectBidiOverCdp(endpoint.url, timeoutMs, devtoolsMessageCap(bodyBytes))
    : connectBidi(endpoint.url, timeoutMs);
}

export function createMonitoring(options: {
  grid: Grid;
  workspaces: Workspaces;
  log: NetworkLog;
  bodyBytes: number;
  watchMs?: number;
  /** where a monitor lost under its reasons is said */
  lines?: Pick<LogLines, 'warn'>;
}): Monitoring {
  const { grid, workspaces } = options;
  const connect = (endpoint: BidiEndpoint) => openBidi(endpoint, options.bodyBytes);
  const monitors = new BidiMonitors({ connect, watchMs: options.watchMs, log: options.lines });
  const capture = new NetworkCapture({
    monitors,
    log: options.log,
    connect,
    holds: async (key, gridId) => (await workspaces.record(key))?.gridId === gridId,
    bodyBytes: options.bodyBytes,
  });
  workspaces.onBrowserEnded((key, gridId) => void capture.browserEnded(key, gridId).catch(() => undefined));
  return {
    monitors,
    capture,
    bidiAddress: (capabilities) => (capabilities ? grid.bidiAddress(capabilities) : undefined),
    close: () => monitors.close(),
  };
}
