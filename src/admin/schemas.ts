import { z } from 'zod';
import { auditEvent } from '../events/events.js';
import { BROWSER_KINDS } from '../grid/capabilities.js';
import { rejectedLine } from '../secrets/origins.js';
import { sourceKind } from '../secrets/source.js';
import { cleared, fileDeleted, fileEntry, keepResult, workspaceSections } from '../files/answers.js';

/**
 * Every answer of the admin API (`/admin/api/*`), declared once. The routes document these in
 * the OpenAPI document (tag `admin`) and the page imports the types (`import type`), so the
 * server, the description and the page cannot disagree about a field.
 *
 * What never appears in any of them: a secret's value, and (outside one workspace's browser
 * block) a Grid session id: agents never learn one, and the listing is polled.
 */

const isoTime = z.string().describe('ISO 8601, UTC');

export const browserState = z
  .enum(['live', 'reaped', 'none', 'unknown'])
  .describe(
    'live: the Grid runs its browser; reaped: the record names a browser the Grid no longer runs (ended or idled out); none: no browser; unknown: the Grid did not answer',
  );

export const lastPage = z
  .object({
    url: z
      .string()
      .describe(
        'as the browser last reported it; render it as a link only when it is http: or https: (javascript: and data: are URLs too)',
      ),
    title: z.string(),
  })
  .nullable()
  .describe('null: the workspace never showed a page');

export const workspaceCounts = z.object({
  downloads: z
    .number()
    .int()
    .nullable()
    .describe(
      'null unless the browser is live (downloads end with it), its Grid keeps downloads, and its Grid node answered',
    ),
  screenshots: z.number().int().nullable().describe('null: no data directory (FLOW_DATA_DIR)'),
  files: z.number().int().nullable().describe('null: no data directory (FLOW_DATA_DIR)'),
  flows: z.number().int().nullable().describe('own flows only; null: flows are off (no data directory)'),
});

export const workspaceBytes = z
  .object({
    downloads: z
      .number()
      .int()
      .nullable()
      .describe('null unless the browser is live, its Grid keeps downloads, and its Grid node answered'),
    screenshots: z.number().int().nullable().describe('null: no data directory (FLOW_DATA_DIR)'),
    files: z.number().int().nullable().describe('null: no data directory (FLOW_DATA_DIR)'),
    flows: z.number().int().nullable().describe('own flows only; null: flows are off (no data directory)'),
  })
  .describe("the size of what counts counts, in bytes (downloads on the Grid node, the rest on this server's disk)");

export const workspaceDisk = z
  .object({
    used: z
      .number()
      .int()
      .describe("bytes the workspace keeps on this server's disk: its screenshots, files and flows"),
    quota: z
      .number()
      .int()
      .nullable()
      .describe('WORKSPACE_DISK_QUOTA in bytes, past which its saves answer 409; null: no quota (global has none)'),
  })
  .nullable()
  .describe('null: no data directory (FLOW_DATA_DIR)');

export const workspaceRow = z.object({
  name: z.string().describe('the workspace name; `global` is the shared flow library, `_stdio` the stdio caller'),
  global: z.boolean().describe('true for the shared library `global`, which has no browser'),
  state: browserState,
  last_page: lastPage,
  counts: workspaceCounts,
  bytes: workspaceBytes,
  disk: workspaceDisk,
  last_activity: isoTime.nullable().describe('the last call on it, else its newest file; null when neither is known'),
  problem: z.string().optional().describe('why part of this row could not be read; the rest of the listing is whole'),
});

export const workspaceList = z.object({
  count: z.number().int(),
  /** bounded (MAX_LISTED_WORKSPACES); the rest are left out and counted */
  truncated: z.number().int().describe('workspaces left out past the listing bound (0 almost always)'),
  grid: z.boolean().describe('whether the Grid answered (else browser states are unknown)'),
  workspaces: z.array(workspaceRow).describe('global first, then by name'),
});

// Files: files/answers.ts declares them; the admin API answers them as they are.

export { fileDeleted, fileEntry };

export const fileSections = workspaceSections;

export const screenshotsCleared = cleared;

export const downloadsCleared = cleared;

export const fileKept = keepResult;

export const browserBlock = z
  .object({
    kind: z.enum(BROWSER_KINDS),
    version: z.string().nullable().describe('null once the browser ended'),
    window: z.object({ width: z.number().int(), height: z.number().int() }),
    started: isoTime.nullable().describe('when the browser opened; null once it ended'),
    grid_id: z
      .string()
      .nullable()
      .describe("the Grid's session id: for the operator only (no agent answer carries it); null without a browser"),
    node: z
      .object({ id: z.string(), availability: z.string() })
      .nullable()
      .describe('the Grid node that runs it; null unless live'),
  })
  .nullable()
  .describe('null: the workspace has no record (only a library directory)');

export const workspaceDetail = workspaceRow.extend({
  browser: browserBlock,
  files: fileSections,
});

export const workspaceDeleted = z.object({
  workspace: z.string(),
  deleted: z.literal(true),
  browser: z.boolean().describe('whether a browser was running and was ended'),
  lost: z
    .object({ counts: workspaceCounts, bytes: workspaceBytes })
    .describe('what went with it, measured just before: the same figures the listing showed'),
});

export const browserEnded = z.object({
  workspace: z.string(),
  ended: z.boolean().describe('false: there was no browser to end'),
});

// Flows: declared in flow-schemas.ts, beside these.

export * from './flow-schemas.js';

// Secrets

export const secretUse = z.object({
  library: z.string().describe('the workspace whose stored flow types it, or `global`'),
  flow: z.string(),
  shared: z.boolean(),
  steps: z.array(z.object({ number: z.number().int(), id: z.string().nullable(), key: z.string() })),
});

export const secretCard = z.object({
  name: z.string(),
  description: z.string().nullable(),
  keys: z.array(z.string()),
  where: z.array(z.string()).describe('origins it may be typed on; ["any site"] when it declares no restriction'),
  restricted: z.boolean(),
  usable: z.boolean(),
  problem: z.string().optional(),
  rejected_lines: z
    .array(rejectedLine)
    .describe('_allowed_urls lines refused, by number (never their text); any one makes the secret unusable'),
  source: sourceKind,
  location: z.string(),
  workspace: z.string().nullable().describe('the one workspace it is scoped to; null: every workspace'),
  uses: z.array(secretUse).describe('the stored flows that type it'),
});

export const secretsAnswer = z.object({
  enabled: z.boolean().describe('false: no secret source is configured'),
  secrets: z.array(secretCard),
  undefined: z
    .array(z.object({ name: z.string(), uses: z.array(secretUse) }))
    .describe('names stored flows type that no secret defines: those flows fail at that step'),
  sources: z.array(
    z.object({ source: z.enum(['filesystem', 'kubernetes']), location: z.string(), problem: z.string().optional() }),
  ),
});

// Events (declared by the events module, which every area emits into)

export { auditEvent };

export const eventHistory = z.object({
  events: z.array(auditEvent).describe('newest first, at most the history bound'),
});

// The Grid

export const gridStatus = z.object({
  reachable: z.boolean(),
  ready: z.boolean().describe("the Grid's own flag: false also while every slot is busy"),
  message: z.string().nullable(),
  browsers: z.array(z.string()).describe('the browser names its nodes that are up offer'),
  slots: z
    .number()
    .int()
    .describe(
      'browsers the nodes that are up run at most at once: each node counts its maxSessions, not one per browser it offers',
    ),
  sessions: z.number().int().describe('browsers the nodes that are up run now'),
  watchable: z
    .number()
    .int()
    .describe('slots whose stereotype offers VNC (se:vncEnabled): 0 means no browser on this Grid can be watched'),
  nodes: z.array(
    z.object({
      id: z.string(),
      availability: z.string(),
      version: z.string().nullable(),
      os: z.string().nullable(),
      max_sessions: z.number().int().nullable(),
      slots: z.array(
        z.object({
          browser: z.string().nullable(),
          platform: z.string().nullable(),
          watchable: z.boolean().describe('its stereotype offers VNC: the Live tab can show a browser here'),
          session: z
            .object({
              started: isoTime.nullable(),
              browser: z.string().nullable(),
              version: z.string().nullable(),
              workspace: z
                .string()
                .nullable()
                .describe('the workspace that holds it; null: a stateless caller or none of ours'),
            })
            .nullable(),
        }),
      ),
    }),
  ),
});

export type BrowserState = z.infer<typeof browserState>;
export type WorkspaceRow = z.infer<typeof workspaceRow>;
export type WorkspaceList = z.infer<typeof workspaceList>;
export type FileEntry = z.infer<typeof fileEntry>;
export type FileSections = z.infer<typeof fileSections>;
export type BrowserBlock = z.infer<typeof browserBlock>;
export type WorkspaceDetail = z.infer<typeof workspaceDetail>;
export type BrowserEnded = z.infer<typeof browserEnded>;
export type WorkspaceDeleted = z.infer<typeof workspaceDeleted>;
export type WorkspaceUsage = WorkspaceDeleted['lost'];
export type ScreenshotsCleared = z.infer<typeof screenshotsCleared>;
export type DownloadsCleared = z.infer<typeof downloadsCleared>;
export type FileDeleted = z.infer<typeof fileDeleted>;
export type FileKept = z.infer<typeof fileKept>;
export type SecretUse = z.infer<typeof secretUse>;
export type SecretCard = z.infer<typeof secretCard>;
export type SecretsAnswer = z.infer<typeof secretsAnswer>;
export type AuditEvent = z.infer<typeof auditEvent>;
export type EventHistory = z.infer<typeof eventHistory>;
export type GridStatus = z.infer<typeof gridStatus>;

/** The error every route answers on failure; `line` when a flow's YAML is refused at a known line. */
export interface AdminError {
  error: { code: string; message: string; line?: number };
}
