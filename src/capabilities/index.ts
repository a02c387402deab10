import type { Capability } from './capability.js';
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
