import type { Grid } from '../grid/grid.js';
import type { Workspaces } from '../workspace/workspaces.js';
import { connectBidi } from './bidi.js';
import { NetworkCapture } from './capture.js';
import { BidiMonitors } from './monitor.js';
import type { NetworkLog } from './network-log.js';

/** What live/ serves the call path: the BiDi monitor and the reasons built on it. */
export interface Live {
  monitors: BidiMonitors;
  capture: NetworkCapture;
  /** the Grid's address of a browser's BiDi websocket, from its recorded capabilities */
  bidiAddress(capabilities: Record<string, unknown> | undefined): string | undefined;
  close(): Promise<void>;
}

// A Grid that accepts the connection but never upgrades it must not hold a call for long.
const HANDSHAKE_MS = 10_000;

export function createLive(options: {
  grid: Grid;
  workspaces: Workspaces;
  log: NetworkLog;
  bodyBytes: number;
  watchMs?: number;
}): Live {
  const { grid, workspaces } = options;
  const connect = (address: string) => connectBidi(address, HANDSHAKE_MS);
  const monitors = new BidiMonitors({ connect, watchMs: options.watchMs });
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
