import type { AdminDeps } from './deps.js';
import { BadRequest, NotFound } from '../errors.js';
import type { EventSink } from '../events/events.js';
import type { FlowStore } from '../flows/store.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import { callerOfWorkspace, turnKeyOf } from '../workspace/caller.js';
import { workspaceOrStdio } from '../workspace/names.js';
import type { WorkspaceDeleted } from './schemas.js';
import type { WorkspaceOverview } from './overview.js';

/**
 * Deletes a workspace as an operator asks: its browser ends, its record goes (from Redis too, so
 * every replica's next call on the name starts clean), and its flows and files leave the disk.
 * Answers what was lost, measured just before, so the operator reads what the page warned of.
 */
export async function deleteWorkspace(
  rawName: string,
  deps: AdminDeps,
  flowStore: FlowStore | undefined,
  overview: WorkspaceOverview,
  events: EventSink,
  /** frees the name's place in WORKSPACES_PER_TOKEN at once */
  forget: (workspace: string) => Promise<void> = async () => undefined,
): Promise<WorkspaceDeleted> {
  if (rawName === GLOBAL_LIBRARY) {
    throw new BadRequest(
      '`global` is the shared flow library every workspace reads, not a workspace: delete its flows one by one (DELETE /admin/api/workspaces/global/flows/<flow>).',
    );
  }
  // The one name rule: nothing from outside reaches a path unchecked.
  const name = workspaceOrStdio(rawName);
  const caller = callerOfWorkspace(name);
  const key = caller.key ?? '';
  const [record, directories] = await Promise.all([deps.workspaces.record(key), deps.files.directories()]);
  if (!record && !directories.includes(name)) {
    throw new NotFound(
      `No workspace named ${name} (no record and no directory); GET /admin/api/workspaces lists them.`,
    );
  }
  const turnKey = turnKeyOf(caller, undefined) ?? key;
  // In the workspace's turn, like any call: a call running on it finishes first, and one that
  // comes after finds nothing.
  return deps.turns.run(turnKey, async () => {
    const lost = await overview.usage(name);
    const browser = await deps.workspaces.end(caller, undefined, 'operator');
    deps.secrets?.typed.forget(turnKey);
    await deps.workspaces.store.delete(key);
    await flowStore?.clear(name);
    await deps.files.removeWorkspace(name);
    await forget(name);
    deps.flows?.changed(name);
    events.emit({
      type: 'workspace_deleted',
      workspace: name,
      by: 'operator',
      browser,
      downloads: lost.counts.downloads ?? 0,
      screenshots: lost.counts.screenshots ?? 0,
      files: lost.counts.files ?? 0,
      flows: lost.counts.flows ?? 0,
    });
    return { workspace: name, deleted: true, browser, lost };
  });
}
