import { z } from 'zod';
import { setting, type Setting } from '../setting.js';
import { CONTROL_BY } from './control-policy.js';

/**
 * Watching and Control, one entry each of SETTINGS (src/settings.ts spreads them in: --help, the
 * README's table and the config file see them there), kept here with their rules (docs/live.md).
 */

export const LIVE_SETTINGS = {
  liveView: setting({
    env: 'LIVE_VIEW',
    help: 'prefer: open a browser on a watchable (VNC) slot while one is free; off: never (docs/live.md)',
    schema: z.enum(['prefer', 'off'], { error: 'must be "prefer" or "off"' }).default('prefer'),
  }),
  controlBy: setting({
    env: 'CONTROL_BY',
    help: 'who may take Control of a browser: admin (a person on the admin page, with an admin credential no agent holds), apps (also the live app of an MCP host whose TOKENS_FILE token says control: true), off (watch only); docs/security.md',
    schema: z.enum(CONTROL_BY, { error: 'must be "admin", "apps" or "off"' }).default('admin'),
  }),
  embeddedLiveViews: setting({
    env: 'EMBEDDED_LIVE_VIEWS',
    help: 'watchable slots of the embedded Grid per browser (Chromium, and Firefox where present), each a display of its own (0-4)',
    schema: z.coerce.number().int().min(0).max(4).default(1),
  }),
  liveAwaitCap: setting({
    env: 'LIVE_AWAIT_CAP',
    help: 'seconds await_control waits for a person to hand back before it answers "call again" (at least 30)',
    schema: z.coerce.number().int().min(30).max(600).default(90),
  }),
} satisfies Record<string, Setting<unknown>>;
