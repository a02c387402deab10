import type { AdminDeps } from './deps.js';
import { BadRequest } from '../errors.js';
import type { EventLog } from '../events/events.js';
import type { FlowStore } from '../flows/store.js';
import { workspaceOrStdio } from '../workspace/names.js';
import type { BrowserEnded, WorkspaceDeleted } from './schemas.js';
import { deleteWorkspace } from './removal.js';
import { callerOfWorkspace, turnKeyOf } from '../workspace/caller.js';
import { CAPABILITIES } from '../capabilities/index.js';
import { OperatorFlows } from './flows.js';
import { FlowLibraries } from '../flows/library.js';
import { WorkspaceOverview } from './overview.js';
import { SecretsOverview } from './secrets.js';

/** What the admin API's routes use: the operator's view of every workspace, and its actions. */
export interface AdminServices {
  overview: WorkspaceOverview;
  flows: OperatorFlows;
  secrets: SecretsOverview;
  /** the audit events: their history and the streams that follow them */
  events: EventLog;
  /** ends a workspace's browser, taking its turn like any call so it never cuts one in half */
  endBrowser(workspace: string): Promise<BrowserEnded>;
  /** deletes a workspace: its browser, record, flows and files (never `global`) */
  deleteWorkspace(workspace: string): Promise<WorkspaceDeleted>;
}

export function createAdmin(
  deps: AdminDeps,
  flowStore: FlowStore | undefined,
  library: FlowLibraries | undefined,
  events: EventLog,
  quotas: {
    /** WORKSPACE_DISK_QUOTA in bytes, shown against each workspace's use */
    diskQuota?: number;
    /** frees a deleted workspace's place in WORKSPACES_PER_TOKEN */
    forget?: (workspace: string) => Promise<void>;
  } = {},
): AdminServices {
  const { diskQuota, forget } = quotas;
  const overview = new WorkspaceOverview({ workspaces: deps.workspaces, files: deps.files, flowStore, diskQuota });
  return {
    events,
    overview,
    deleteWorkspace: (name) => deleteWorkspace(name, deps, flowStore, overview, events, forget),
    flows: new OperatorFlows(
      flowStore ?? NO_FLOWS,
      CAPABILITIES,
      library ?? new FlowLibraries(NO_FLOWS, CAPABILITIES, 0),
    ),
    secrets: new SecretsOverview(deps.secrets, deps.files, flowStore, CAPABILITIES),
    endBrowser: async (rawName) => {
      const name = workspaceOrStdio(rawName);
      const caller = callerOfWorkspace(name);
      const turnKey = turnKeyOf(caller) ?? '';
      const ended = await deps.turns.run(turnKey, async () => {
        const done = await deps.workspaces.end(caller, undefined, 'operator');
        // The values typed into that browser go with it, as when an agent ends it.
        deps.secrets?.typed.forget(turnKey);
        return done;
      });
      return { workspace: name, ended };
    },
  };
}

const NO_DATA_DIR = 'Flows need a data directory: set FLOW_DATA_DIR (--data-dir) on the server, then restart it.';

/** The flow store of a server without a data directory: nothing to list, and a write says why. */
const NO_FLOWS: FlowStore = {
  names: async () => [],
  get: async () => undefined,
  put: async () => {
    throw new BadRequest(NO_DATA_DIR);
  },
  delete: async () => false,
  uses: async () => ({}),
  recordUse: async () => undefined,
  usage: async () => ({ count: 0, bytes: 0 }),
  clear: async () => undefined,
};
