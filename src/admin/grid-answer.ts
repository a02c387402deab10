import { isUp, slotCapacity, type GridStatusReading } from '../grid/status.js';
import type { GridStatus } from './schemas.js';

/**
 * The Grid tab's answer: its nodes, slots and sessions as the Grid reported them, each session
 * with the workspace that holds it (`holders`: Grid id → workspace), and the browsers it offers.
 */
export function gridAnswer(status: GridStatusReading, holders: ReadonlyMap<string, string>): GridStatus {
  const slots = status.nodes.flatMap((n) => n.slots);
  const capacity = slotCapacity(status.nodes);
  return {
    reachable: status.reachable,
    ready: status.ready,
    message: status.message,
    browsers: [...new Set(status.nodes.filter(isUp).flatMap((n) => n.slots.flatMap((s) => s.browser ?? [])))].sort(),
    slots: capacity.total,
    sessions: capacity.used,
    watchable: slots.filter((s) => s.watchable).length,
    nodes: status.nodes.map((node) => ({
      id: node.id,
      availability: node.availability,
      version: node.version,
      os: node.os,
      max_sessions: node.maxSessions,
      slots: node.slots.map((slot) => ({
        browser: slot.browser,
        platform: slot.platform,
        watchable: slot.watchable,
        session: slot.session && {
          started: slot.session.started,
          browser: slot.session.browser,
          version: slot.session.version,
          workspace: holders.get(slot.session.gridId) ?? null,
        },
      })),
    })),
  };
}
