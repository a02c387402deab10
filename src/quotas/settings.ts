import { z } from 'zod';
import { setting, type Command, type Setting } from '../setting.js';

/**
 * The quotas and the drain, one entry each of SETTINGS (src/settings.ts spreads them in: --help,
 * the README's table and the config file see them there), kept here with their rules.
 */

const SERVE: readonly Command[] = ['serve'];

export const QUOTA_SETTINGS = {
  workspaceDiskQuota: setting({
    env: 'WORKSPACE_DISK_QUOTA',
    help: "MiB one workspace may keep on the server's disk: its Screenshots, Files (prints, kept downloads, saved bodies) and flows; a save past it answers 409 naming it (0: no quota)",
    schema: z.coerce.number().int().min(0).max(1_048_576).default(512),
  }),
  workspacesPerToken: setting({
    env: 'WORKSPACES_PER_TOKEN',
    usedBy: SERVE,
    help: 'workspaces one token (all token-less callers together) may name and keep something in; a new name past it answers 409 (a name that holds nothing any more is freed)',
    schema: z.coerce.number().int().min(1).max(100_000).default(100),
  }),
  shutdownGrace: setting({
    env: 'SHUTDOWN_GRACE',
    usedBy: SERVE,
    help: 'seconds the calls in flight may take to finish after SIGTERM (new calls answer 503 at once); those still running then are cut off',
    schema: z.coerce.number().int().min(1).max(600).default(10),
  }),
} satisfies Record<string, Setting<unknown>>;
