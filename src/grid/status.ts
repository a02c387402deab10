import type { Agent } from 'node:http';
import { z } from 'zod';
import { GridUnavailable } from '../errors.js';
import { gridRequest } from './fetch.js';

/**
 * A field of the Grid's answer that is not what we expect reads as absent: Grids of other
 * versions (and proxies) vary in the details, and one odd field must not hide the rest.
 */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

const WireSession = z.object({
  sessionId: z.string(),
  start: lenient(z.string()),
  capabilities: lenient(z.looseObject({ browserName: lenient(z.string()), browserVersion: lenient(z.string()) })),
});

const WireSlot = z.object({
  /** what the slot offers; other keys (se:vncEnabled, ours for the live view) stay as the Grid sent them */
  stereotype: lenient(z.looseObject({ browserName: lenient(z.string()), platformName: lenient(z.string()) })),
  session: lenient(WireSession.nullable()),
});

const WireNode = z.object({
  id: lenient(z.string()),
  /** where the node listens, as it told the Grid (the fence keeps browsers off it) */
  uri: lenient(z.string()),
  availability: lenient(z.string()),
  version: lenient(z.string()),
  maxSessions: lenient(z.number()),
  osInfo: lenient(z.object({ name: lenient(z.string()), version: lenient(z.string()) })),
  slots: lenient(z.array(WireSlot)),
});

/** The Grid's answer to GET /status (W3C `{value: {ready, message}}`, plus Selenium Grid 4's nodes). */
const WireStatus = z.object({
  value: z.object({
    ready: lenient(z.boolean()),
    message: lenient(z.string()),
    nodes: lenient(z.array(WireNode)),
  }),
});

export type GridStatusAnswer = z.infer<typeof WireStatus>['value'];
export type GridStatusSlot = z.infer<typeof WireSlot>;

/**
 * One GET /status, parsed: the only reader of the Grid's status JSON. It touches no session, so
 * reading it never keeps a browser from idling out. Throws GridUnavailable when the Grid does not
 * answer, or answers something that is not a status (a proxy's error page). `agent`: the
 * connections to read it on (the Grid's own, grid/fetch.ts).
 */
export async function fetchGridStatus(gridUrl: string, agent?: Agent): Promise<GridStatusAnswer> {
  const parsed = WireStatus.safeParse((await gridRequest(`${gridUrl}/status`, 'GET', agent)).json);
  if (!parsed.success) {
    throw new GridUnavailable(
      'The Grid did not answer its status in JSON; check that GRID_URL points at the Grid itself, then retry.',
    );
  }
  return parsed.data.value;
}

/** The slots of the nodes that are up (a node that does not say is taken as up). */
export function upSlots(status: GridStatusAnswer): GridStatusSlot[] {
  return (status.nodes ?? [])
    .filter((node) => node.availability === undefined || node.availability === 'UP')
    .flatMap((node) => node.slots ?? []);
}

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

/** The availability of a node whose Grid does not say. */
const UNSAID = 'UNKNOWN';

/** Past this many nodes the Grid's answer is cut: a status page is not an inventory. */
export const MAX_NODES = 200;
const MAX_SLOTS_PER_NODE = 64;

/**
 * The Grid's nodes, slots and sessions from one GET /status, which touches no session (so
 * reading it never keeps a browser from idling out, unlike asking a session itself). Node
 * addresses are left out: no page may learn where the Grid or its nodes listen.
 */
export async function readGridStatus(gridUrl: string, agent?: Agent): Promise<GridStatusReading> {
  let value: GridStatusAnswer;
  try {
    value = await fetchGridStatus(gridUrl, agent);
  } catch {
    return { reachable: false, ready: false, message: null, nodes: [] };
  }
  return {
    reachable: true,
    ready: value.ready === true,
    message: text(value.message),
    nodes: (value.nodes ?? []).slice(0, MAX_NODES).map((node) => ({
      id: text(node.id) ?? '',
      availability: text(node.availability) ?? UNSAID,
      version: text(node.version),
      os: [text(node.osInfo?.name), text(node.osInfo?.version)].filter(Boolean).join(' ') || null,
      maxSessions: node.maxSessions ?? null,
      slots: (node.slots ?? []).slice(0, MAX_SLOTS_PER_NODE).map((slot) => ({
        browser: text(slot.stereotype?.browserName),
        platform: text(slot.stereotype?.platformName),
        watchable: slot.stereotype?.['se:vncEnabled'] === true,
        session: slot.session
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

/** How many browsers the nodes that are up can run at once, and how many they run. */
export interface SlotCapacity {
  /** browsers that can open now without waiting in the Grid's queue */
  free: number;
  used: number;
  /** free + used: what the nodes that are up run at most at once */
  total: number;
}

/**
 * The one count of a Grid's slots (for /metrics and the admin page). A node lists a slot per
 * browser it offers (Chromium and Firefox each) but runs at most maxSessions at once, so a
 * one-session node offering both has one slot, not two, and none free while it runs one.
 */
export function slotCapacity(nodes: readonly GridNode[]): SlotCapacity {
  let free = 0;
  let used = 0;
  for (const node of nodes.filter(isUp)) {
    const busy = node.slots.filter((slot) => slot.session).length;
    used += busy;
    free += Math.max(0, Math.min(node.slots.length, node.maxSessions ?? node.slots.length) - busy);
  }
  return { free, used, total: free + used };
}

/** A node that is up, or that does not say (Grids older than 4 do not). */
export function isUp(node: GridNode): boolean {
  return node.availability === 'UP' || node.availability === UNSAID;
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

function text(value: string | undefined): string | null {
  return value ? value.slice(0, 200) : null;
}
