import type { CallDeps } from '../capabilities/call/call.js';
import { turnKeyOf } from '../capabilities/call/contexts.js';
import type { FlowStore } from '../flows/store.js';
import { libraryName } from '../files/names.js';
import type { BrowserEnded } from '../http/admin/schemas.js';
import { callerOfWorkspace } from '../workspace/caller.js';
import { WorkspaceOverview } from './overview.js';

/** What the admin API's routes use: the operator's view of every workspace, and its actions. */
export interface AdminServices {
  overview: WorkspaceOverview;
  /** ends a workspace's browser, taking its turn like any call so it never cuts one in half */
  endBrowser(workspace: string): Promise<BrowserEnded>;
}

export function createAdmin(deps: CallDeps, flowStore: FlowStore | undefined): AdminServices {
  return {
    overview: new WorkspaceOverview({ workspaces: deps.workspaces, files: deps.files, flowStore }),
    endBrowser: async (rawName) => {
      const name = libraryName(rawName);
      const caller = callerOfWorkspace(name);
      const turnKey = turnKeyOf(caller, undefined) ?? '';
      const ended = await deps.turns.run(turnKey, async () => {
        const done = await deps.workspaces.end(caller, undefined);
        // The values typed into that browser go with it, as when an agent ends it.
        deps.secrets?.typed.forget(turnKey);
        return done;
      });
      return { workspace: name, ended };
    },
  };
}
