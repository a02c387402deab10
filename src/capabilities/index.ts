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
