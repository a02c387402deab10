import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LiveDocuments, type LiveStore } from './live-store.js';

/**
 * await_control as an MCP task (the 2026-07-28 Tasks extension, io.modelcontextprotocol/tasks):
 * a wait for a person's hand-back that the client polls with tasks/get instead of holding a
 * request open. The task lives in the live store every replica shares, so a tasks/get through
 * replica B answers a task created through replica A; no replica holds the wait itself. While
 * the episode it waits on applies it is `working`; the first tasks/get after the hand-back
 * claims it (of two replicas, one), reads the hand-back through the ordinary call path and
 * keeps the result, which every later tasks/get answers. A cancel ends the task and only it.
 */
const controlTask = z.object({
  taskId: z.string(),
  workspace: z.string(),
  /** who created it (a Principal's id, '' when none): a task answers only to its creator */
  owner: z.string(),
  status: z.enum(['working', 'completed', 'cancelled']),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  /** the tool result it completed with */
  result: z.record(z.string(), z.unknown()).optional(),
});

export type ControlTask = z.infer<typeof controlTask>;

/** A task outlives the longest episode (a day, control.ts) so a long hold still answers its poll. */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a client is asked to poll: a hand-back is said within a second, and no faster. */
export const TASK_POLL_MS = 1_000;

const claimKey = (taskId: string) => `task-claim:${taskId}`;
const openKey = (workspace: string, owner: string) => `task-open:${workspace}:${owner}`;

export class ControlTasks {
  private readonly tasks: LiveDocuments<ControlTask>;

  constructor(
    private readonly store: LiveStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.tasks = new LiveDocuments(store, (taskId) => `task:${taskId}`, controlTask, TASK_TTL_MS);
  }

  /**
   * The caller's working task, or a new one, durable before it is answered (a tasks/get for its id
   * resolves at once). One working task per caller and workspace: an agent calling await_control in a
   * loop while a person holds on must not fill the store with day-long tasks.
   */
  async create(workspace: string, owner: string): Promise<ControlTask> {
    const openId = await this.store.get(openKey(workspace, owner));
    const open = openId === undefined ? undefined : await this.get(openId, workspace, owner);
    if (open?.status === 'working') {
      return open;
    }
    const at = this.now().toISOString();
    // 144 bits: an id is the task's bearer, never guessed (the spec's "unguessable").
    const task: ControlTask = {
      taskId: randomBytes(18).toString('base64url'),
      workspace,
      owner,
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
    };
    await this.store.put(claimKey(task.taskId), '1', TASK_TTL_MS);
    await this.save(task);
    await this.store.put(openKey(workspace, owner), task.taskId, TASK_TTL_MS);
    return task;
  }

  /** The caller's task in this workspace that is still working, if any (one at most, see create). */
  async open(workspace: string | undefined, owner: string): Promise<ControlTask | undefined> {
    const openId = workspace === undefined ? undefined : await this.store.get(openKey(workspace, owner));
    const open = openId === undefined ? undefined : await this.get(openId, workspace, owner);
    return open?.status === 'working' ? open : undefined;
  }

  /** The task, only to the caller that created it (anyone else reads it as unknown). */
  async get(taskId: string, workspace: string | undefined, owner: string): Promise<ControlTask | undefined> {
    const task = await this.tasks.get(taskId);
    return task && task.workspace === workspace && task.owner === owner ? task : undefined;
  }

  /** Whether this poll is the one that settles the task (of two at once, one is). */
  async claim(taskId: string): Promise<boolean> {
    return (await this.store.take(claimKey(taskId))) !== undefined;
  }

  /** Gives the claim back (settling failed): the next poll tries again. */
  async unclaim(taskId: string): Promise<void> {
    await this.store.put(claimKey(taskId), '1', TASK_TTL_MS);
  }

  async complete(task: ControlTask, result: Record<string, unknown>): Promise<ControlTask> {
    return this.save({ ...task, status: 'completed', result, lastUpdatedAt: this.now().toISOString() });
  }

  /** Cancelled, if it had not settled yet; the episode it waited on is not touched. */
  async cancel(task: ControlTask): Promise<ControlTask> {
    if (task.status !== 'working' || !(await this.claim(task.taskId))) {
      return task;
    }
    return this.save({ ...task, status: 'cancelled', lastUpdatedAt: this.now().toISOString() });
  }

  private async save(task: ControlTask): Promise<ControlTask> {
    await this.tasks.put(task.taskId, task);
    return task;
  }
}
