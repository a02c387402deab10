import { z } from 'zod';
import { setting, type Setting } from '../setting.js';

/**
 * What tools/list carries beside the table's tools (resource mirrors, flow tools), one entry each
 * of SETTINGS (src/settings.ts spreads them in: --help, the README's table and the config file see
 * them there), kept here with their rules.
 */

export const TOOL_LIST_SETTINGS = {
  mirrorTools: setting({
    env: 'MIRROR_TOOLS',
    flag: 'mirror-tools',
    help: 'on: every resource also has a tool for clients that cannot read resources; off drops them',
    schema: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  }),
  flowTools: setting({
    env: 'FLOW_TOOLS',
    flag: 'flow-tools',
    help: 'on: each saved flow is also an MCP tool, flow_<name>; off: flows run only through run_flow',
    schema: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  }),
  flowToolsMax: setting({
    env: 'FLOW_TOOLS_MAX',
    flag: 'flow-tools-max',
    help: 'most flow tools listed per workspace, most recently run first (the rest run through run_flow)',
    schema: z.coerce.number().int().min(0).max(200).default(20),
  }),
} satisfies Record<string, Setting<unknown>>;
