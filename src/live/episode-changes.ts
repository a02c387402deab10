/**
 * The changes of Control episodes made through this process, for whoever waits on them here:
 * await_control's wait wakes at once instead of at its next poll of the shared store, and the
 * tunnels' cache drops what it knew. Another replica's change is not seen here; the poll finds it.
 */
export class EpisodeChanges {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly listeners = new Set<(workspace: string) => void>();

  /** Resolves at the next change of the workspace's episode in this process, or after `ms`. */
  async next(workspace: string, ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const waiters = this.waiters.get(workspace) ?? new Set();
      this.waiters.set(workspace, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      signal?.addEventListener('abort', done);
    });
  }

  onChange(listener: (workspace: string) => void): void {
    this.listeners.add(listener);
  }

  tell(workspace: string): void {
    for (const listener of this.listeners) {
      listener(workspace);
    }
    for (const waiter of [...(this.waiters.get(workspace) ?? [])]) {
      waiter();
    }
  }
}
