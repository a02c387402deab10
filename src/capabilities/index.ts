import type { Capability, RestCapability } from './capability.js';
import { CAPABILITIES } from './tools/index.js';

export { CAPABILITIES };

const BY_NAME = new Map(CAPABILITIES.map((c) => [c.name, c]));

export function capabilityNamed(name: string): Capability | undefined {
  return BY_NAME.get(name);
}

/** Tools that only mirror a resource, for clients that cannot read resources. */
export const MIRROR_TOOLS: ReadonlySet<string> = new Set(
  CAPABILITIES.filter((c) => c.mirrors.length > 0).map((c) => c.name),
);

/** The rows with a REST route: every tool but an app's buttons (a person's act through a host). */
export const REST_CAPABILITIES: readonly RestCapability[] = CAPABILITIES.filter(
  (c): c is RestCapability => c.http !== undefined,
);

/**
 * The rows a surface calls for a purpose of its own, not because a caller named them: a flow tool
 * runs as run_flow, a resource reads through its tool, a task settles by calling await_control
 * again. They are found here once, so no surface imports a row, and a role that no row or two
 * rows hold fails at load rather than at the first call.
 */
export const ROLES = {
  runsFlows: onlyRow('runs flows', (c) => c.name === 'run_flow'),
  listsFlows: onlyRow('lists flows', (c) => c.name === 'list_flows'),
  skill: onlyRow('reads the skill', (c) => c.name === 'selenium_flow_skill'),
  awaitsControl: onlyRow('answers as a task while held', (c) => c.answersAsTaskWhileHeld),
};

function onlyRow(role: string, holds: (capability: Capability) => boolean): Capability {
  const [row, ...others] = CAPABILITIES.filter(holds);
  if (!row || others.length > 0) {
    const found = [row, ...others].flatMap((c) => (c ? [c.name] : []));
    throw new Error(`Exactly one row ${role}; found ${found.length === 0 ? 'none' : found.join(', ')}.`);
  }
  return row;
}
