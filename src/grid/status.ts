import { gridFetch } from './grid.js';

/** One slot of a node, as the Grid's /status describes it; a session's id stays inside this layer's callers. */
export interface GridSlot {
  browser: string | null;
  platform: string | null;
  /** its stereotype offers VNC (`se:vncEnabled`): a browser here can be watched */
  watchable: boolean;
  session: { gridId: string; started: string | null; browser: string | null; version: string | null } | null;
}

export interface GridNode {
  id: string;
  availability: string;
  version: string | null;
  os: string | null;
  maxSessions: number | null;
  slots: GridSlot[];
}

export interface GridStatusReading {
  reachable: boolean;
  ready: boolean;
  message: string | null;
  nodes: GridNode[];
}

interface RawStatus {
  value?: {
    ready?: unknown;
    message?: unknown;
    nodes?: {
      id?: unknown;
      availability?: unknown;
      version?: unknown;
      maxSessions?: unknown;
      osInfo?: { name?: unknown; version?: unknown };
      slots?: {
        stereotype?: { browserName?: unknown; platformName?: unknown; 'se:vncEnabled'?: unknown };
        session?: {
          sessionId?: unknown;
          start?: unknown;
          capabilities?: { browserName?: unknown; browserVersion?: unknown };
        } | null;
      }[];
    }[];
  };
}

/** Past this many nodes the Grid's answer is cut: a status page is not an inventory. */
export const MAX_NODES = 200;
const MAX_SLOTS_PER_NODE = 64;

/**
 * The Grid's nodes, slots and sessions from one GET /status, which touches no session (so
 * reading it never keeps a browser from idling out, unlike asking a session itself). Node
 * addresses are left out: no page may learn where the Grid or its nodes listen.
 */
export async function readGridStatus(gridUrl: string): Promise<GridStatusReading> {
  let body: RawStatus;
  try {
    const response = await gridFetch(`${gridUrl}/status`, { method: 'GET' });
    body = (await response.json()) as RawStatus;
  } catch {
    return { reachable: false, ready: false, message: null, nodes: [] };
  }
  const value = body.value ?? {};
  return {
    reachable: true,
    ready: value.ready === true,
    message: text(value.message),
    nodes: (value.nodes ?? []).slice(0, MAX_NODES).map((node) => ({
      id: text(node.id) ?? '',
      availability: text(node.availability) ?? 'UNKNOWN',
      version: text(node.version),
      os: [text(node.osInfo?.name), text(node.osInfo?.version)].filter(Boolean).join(' ') || null,
      maxSessions: typeof node.maxSessions === 'number' ? node.maxSessions : null,
      slots: (node.slots ?? []).slice(0, MAX_SLOTS_PER_NODE).map((slot) => ({
        browser: text(slot.stereotype?.browserName),
        platform: text(slot.stereotype?.platformName),
        watchable: slot.stereotype?.['se:vncEnabled'] === true,
        session:
          slot.session && typeof slot.session.sessionId === 'string'
            ? {
                gridId: slot.session.sessionId,
                started: text(slot.session.start),
                browser: text(slot.session.capabilities?.browserName),
                version: text(slot.session.capabilities?.browserVersion),
              }
            : null,
      })),
    })),
  };
}

/** The node each running session is on, by Grid id. */
export function sessionNodes(status: GridStatusReading): Map<string, GridNode> {
  const nodes = new Map<string, GridNode>();
  for (const node of status.nodes) {
    for (const slot of node.slots) {
      if (slot.session) {
        nodes.set(slot.session.gridId, node);
      }
    }
  }
  return nodes;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : null;
}
