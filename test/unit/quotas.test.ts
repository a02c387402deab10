import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import { QuotaExceeded } from '../../src/errors.js';
import { Files } from '../../src/files/files.js';
import { FlowLibraries } from '../../src/flows/library.js';
import { DirectoryFlowStore } from '../../src/flows/store.js';
import { MAX_FLOWS_PER_LIBRARY } from '../../src/limits.js';
import { DiskQuota } from '../../src/quotas/disk.js';
import { workspaceRoom } from '../../src/quotas/wiring.js';
import {
  CLAIM_GRACE_MS,
  MemoryWorkspaceClaims,
  WorkspacesPerToken,
  type WorkspaceClaims,
} from '../../src/quotas/workspaces.js';
import { RedisWorkspaceClaims } from '../../src/redis/claims.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisTurns } from '../../src/redis/turns.js';
import { LocalTurns, type Turns } from '../../src/workspace/turns.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

const MiB = 2 ** 20;
const ONE_STEP = { steps: [{ tool: 'outline', args: {} }] };

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'quotas-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

let redis: RunningRedis;
const connections: RedisConnection[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await redis.stop();
});
async function redisTurns(): Promise<RedisTurns> {
  const connection = await RedisConnection.open(redis.url);
  connections.push(connection);
  return new RedisTurns(connection, { pollMs: 5 });
}

/** A server's files and flows as parts.ts builds them, on `root`, with this quota and these turns. */
function replica(quotaMiB: number, turns: Turns) {
  const flowStore = new DirectoryFlowStore(root);
  const room = workspaceRoom(root, quotaMiB, turns, flowStore);
  const files = new Files({
    dataDir: root,
    room,
    downloads: { list: async () => [], read: async () => undefined, clear: async () => undefined },
    linkBase: '',
    browserOf: async () => undefined,
  });
  const flows = new FlowLibraries(flowStore, CAPABILITIES, 5000, undefined, room);
  return { files, flows, room };
}

/** Settles every promise; answers how many were kept and the refusals' messages. */
async function outcomes(saves: Promise<unknown>[]): Promise<{ saved: number; refused: string[] }> {
  const settled = await Promise.allSettled(saves);
  const refused = settled.flatMap((s): unknown[] => (s.status === 'rejected' ? [s.reason] : []));
  for (const reason of refused) {
    expect(reason, String(reason)).toBeInstanceOf(QuotaExceeded);
  }
  return { saved: settled.length - refused.length, refused: refused.map((r) => (r as Error).message) };
}

async function usedOnDisk(workspace: string): Promise<number> {
  const { files } = replica(0, new LocalTurns());
  const { screenshots, files: kept } = await files.stored(workspace);
  return [...screenshots, ...kept].reduce((sum, f) => sum + f.size, 0);
}

describe('a library full but for one place', () => {
  it('keeps one of twenty racing new flows and refuses the rest with a 409 naming the limit', async () => {
    const dir = join(root, 'racing', 'flows');
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < MAX_FLOWS_PER_LIBRARY - 1; i++) {
      await writeFile(join(dir, `old-${i}.yaml`), 'steps:\n  - tool: outline\n    args: {}\n');
    }
    const { flows } = replica(0, new LocalTurns());
    const { saved, refused } = await outcomes(
      Array.from({ length: 20 }, (_, i) => flows.write('racing', `new-${i}`, ONE_STEP)),
    );
    expect(saved).toBe(1);
    expect(refused[0]).toMatch(
      /^racing holds 1000 flows, the most a library holds \(1000\); delete flows it no longer needs \(delete_flow\)/,
    );
    expect((await readdir(dir)).filter((name) => name.endsWith('.yaml'))).toHaveLength(MAX_FLOWS_PER_LIBRARY);
  });
});

describe("a workspace's disk quota", () => {
  it('lets racing screenshots fill it and no further, each refusal naming the quota and how to free room', async () => {
    const { files } = replica(1, new LocalTurns());
    const shot = Buffer.alloc(200 * 1024, 1);
    const { saved, refused } = await outcomes(
      Array.from({ length: 12 }, (_, i) => files.saveScreenshot('crowded', `shot-${i}`, shot)),
    );
    expect(saved).toBe(5);
    expect(await usedOnDisk('crowded')).toBeLessThanOrEqual(MiB);
    expect(refused[0]).toBe(
      "Workspace crowded keeps 1000 KiB on the server's disk and its quota (WORKSPACE_DISK_QUOTA) is 1 MiB: this save (200 KiB) would pass it, so nothing was saved; free room by deleting flows it no longer needs (delete_flow) or by asking an operator to delete its files or clear its screenshots on the admin page, then call again.",
    );
    // Nothing half-saved lingers: each kept file is whole, and no temp file is left behind.
    expect((await files.stored('crowded')).screenshots.map((f) => f.size)).toEqual(Array(5).fill(shot.length));
    expect(await readdir(join(root, 'crowded', '.incoming'))).toEqual([]);
  });

  it('counts flows, frees room when a file goes, and never refuses a move', async () => {
    const { files, flows } = replica(1, new LocalTurns());
    await files.saveScreenshot('mixed', 'big', Buffer.alloc(MiB - 2048, 1));
    const flow = { steps: [{ tool: 'navigate', args: { url: `https://example.com/${'a'.repeat(4000)}` } }] };
    await expect(flows.write('mixed', 'too-much', flow)).rejects.toThrow(/WORKSPACE_DISK_QUOTA/);
    // Keeping the screenshot moves it: no byte more, so it is kept even with the workspace at its quota.
    await files.keep('mixed', 'workspace://files/screenshots/big.png');
    await files.deleteFile('mixed', 'big.png');
    await flows.write('mixed', 'fits-now', flow);
    expect(await usedOnDisk('mixed')).toBe(0);
  });

  it('refuses one save larger than the whole quota, saying to save less', async () => {
    const { files } = replica(1, new LocalTurns());
    await expect(files.savePrint('small', 'huge', Buffer.alloc(2 * MiB))).rejects.toThrow(
      "This save (2 MiB) is larger than workspace small's whole room on the server's disk: its quota (WORKSPACE_DISK_QUOTA) is 1 MiB, so nothing was saved; save something smaller, or ask the server's operator to raise WORKSPACE_DISK_QUOTA.",
    );
  });

  it('holds across two replicas sharing the data directory and Redis', async () => {
    const [a, b] = [replica(1, await redisTurns()), replica(1, await redisTurns())];
    const shot = Buffer.alloc(200 * 1024, 2);
    const { saved } = await outcomes(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).files.saveScreenshot('shared', `shot-${i}`, shot)),
    );
    expect(saved).toBe(5);
    expect(await usedOnDisk('shared')).toBeLessThanOrEqual(MiB);
  });

  it('without a quota, measures nothing', async () => {
    const room = new DiskQuota({
      limitBytes: undefined,
      exclusive: (key, fn) => new LocalTurns().run(key, fn),
      used: () => Promise.reject(new Error('measured')),
    });
    expect(await room.take('any', 10 * MiB, async () => 'written')).toBe('written');
  });
});

describe('workspaces per token', () => {
  const quota = (claims: WorkspaceClaims, holding: Set<string>) =>
    new WorkspacesPerToken(claims, 3, async (names) => names.map((n) => holding.has(n)));

  it.each([
    ['in this process', async (): Promise<WorkspaceClaims[]> => [new MemoryWorkspaceClaims()]],
    [
      'across two replicas sharing Redis',
      async (): Promise<WorkspaceClaims[]> => {
        const opened = await Promise.all([RedisConnection.open(redis.url), RedisConnection.open(redis.url)]);
        connections.push(...opened);
        const prefix = `test-claims-${Date.now()}:`;
        return opened.map((c) => new RedisWorkspaceClaims(c, prefix));
      },
    ],
  ])('admits at most the quota of racing new names %s, and frees a name that holds nothing', async (_, open) => {
    const claims = await open();
    const holding = new Set<string>();
    const quotas = claims.map((c) => quota(c, holding));
    const names = Array.from({ length: 10 }, (_, i) => `ws-${i}`);
    const settled = await Promise.allSettled(
      names.map((n, i) => quotas[i % quotas.length]?.admit('token:a', n) ?? Promise.resolve()),
    );
    const admitted = names.filter((_, i) => settled[i]?.status === 'fulfilled');
    expect(admitted).toHaveLength(3);
    // Named a moment ago, they keep their places though nothing is in them yet: their calls may still be running.
    const first = quotas[0];
    await expect(first?.admit('token:a', 'one-more')).rejects.toThrow(
      /^This token already keeps 3 workspaces \(ws-\d, ws-\d, ws-\d\), the most WORKSPACES_PER_TOKEN \(3\) allows; use one of them, or ask an operator to delete ones it no longer needs on the admin page, then call again\.$/,
    );
    await expect(first?.admit('token:a', admitted[0] ?? '')).resolves.toBeUndefined();
    await expect(first?.admit('token:b', 'one-more')).resolves.toBeUndefined();
    // An operator deleted one: its place is free at once.
    await first?.forget(admitted[2] ?? '');
    await expect(first?.admit('token:a', 'one-more')).resolves.toBeUndefined();
    // Later, one of them still holds nothing (never used): its place goes to a new name.
    holding.add(admitted[0] ?? '').add('one-more');
    const later = Date.now() + CLAIM_GRACE_MS + 1000;
    await expect(first?.admit('token:a', 'two-more', later)).resolves.toBeUndefined();
    await expect(first?.admit('token:a', admitted[1] ?? '', later)).rejects.toThrow(QuotaExceeded);
  });
});
