import type { Files } from '../files/files.js';
import { DiskFiles } from '../files/store.js';
import type { FlowStore } from '../flows/store.js';
import { callerOfWorkspace } from '../workspace/caller.js';
import type { RecordStore } from '../workspace/records.js';
import type { Turns } from '../workspace/turns.js';
import { DiskQuota } from './disk.js';
import { WorkspacesPerToken, type WorkspaceClaims } from './workspaces.js';

/**
 * WORKSPACE_DISK_QUOTA (MiB; 0: none) over what a workspace keeps on disk (Screenshots, Files,
 * flows), measured in the workspace's own turn (`room:<workspace>`, beside its browser's): with
 * Redis that turn is every replica's, so two saves racing on two replicas sharing FLOW_DATA_DIR
 * take it one at a time.
 */
export function workspaceRoom(
  dataDir: string | undefined,
  quotaMiB: number,
  turns: Turns,
  flowStore: FlowStore | undefined,
): DiskQuota {
  const disk = dataDir ? new DiskFiles(dataDir) : undefined;
  return new DiskQuota({
    limitBytes: quotaMiB === 0 ? undefined : quotaMiB * 2 ** 20,
    exclusive: (key, fn) => turns.run(key, fn),
    used: async (workspace) => {
      const [files, flows] = await Promise.all([disk?.usedBytes(workspace), flowStore?.usage(workspace)]);
      return (files ?? 0) + (flows?.bytes ?? 0);
    },
  });
}

/** WORKSPACES_PER_TOKEN: a name holds something while it has a record or a directory (what the admin page lists). */
export function workspacesPerTokenOf(
  most: number,
  claims: WorkspaceClaims,
  store: RecordStore,
  files: Files,
): WorkspacesPerToken {
  return new WorkspacesPerToken(claims, most, async (names) => {
    const [records, directories] = await Promise.all([
      store.getMany(names.map((name) => callerOfWorkspace(name).key)),
      files.directories(),
    ]);
    return names.map((name, i) => records[i] !== undefined || directories.includes(name));
  });
}
