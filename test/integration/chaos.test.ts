import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { rest, sharedGridEnv } from '../helpers/server.js';
import { toolRequest } from '../helpers/tools.js';

/*
 * What survives what, in a short run: agents call two replicas sharing Redis (with persistence)
 * and a data directory while a person takes Control, a replica is killed with SIGKILL and comes
 * back, and Redis restarts. Every call answers, success or a sentence; none outlives its
 * deadline; nothing saved is lost or crosses to another workspace; the await_control cut with the
 * killed replica returns on the other at the hand-back. It prints the table docs/scaling.md keeps.
 * The long run (16 agents, a hub with two nodes, a node and the hub killed, a full disk, 10
 * minutes) is not automated yet: docs/scaling.md says what it is to do.
 */

const site = inject('siteUrl');
const ADMIN = 'chaos-admin-token';
const TOKEN = 'chaos-bearer-token';
const CALL_TIMEOUT_S = 20;
/** No answer may come later than the call's deadline, plus a turn's lease and the machine's slack. */
const DEADLINE_MS = (CALL_TIMEOUT_S + 15) * 1000;
const AGENTS = 2;
const HELD = 'chaos-held';

type Name = 'A' | 'B';
interface Outcome {
  phase: string;
  tool: string;
  status: number | 'cut' | 'hung';
  ms: number;
  /** whether it went to the replica process that was killed */
  toKilled: boolean;
  code?: string;
  message?: string;
}

let redis: RunningRedis;
/** the addresses of replica processes the run killed */
const killed = new Set<string>();
let persistDir: string;
let dataDir: string;
const replicas = {} as Record<Name, Replica>;
let env: Record<string, string>;
const outcomes: Outcome[] = [];
let phase = 'calm';

beforeAll(async () => {
  [persistDir, dataDir] = await Promise.all([
    mkdtemp(join(tmpdir(), 'chaos-redis-')),
    mkdtemp(join(tmpdir(), 'chaos-data-')),
  ]);
  redis = await startRedis({ persistDir });
  env = {
    ...sharedGridEnv(),
    REDIS_URL: redis.url,
    FLOW_DATA_DIR: dataDir,
    ADMIN_TOKEN: ADMIN,
    MCP_AUTH_TOKEN: TOKEN,
    CALL_TIMEOUT: String(CALL_TIMEOUT_S),
  };
  [replicas.A, replicas.B] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
}, 120_000);

afterAll(async () => {
  for (const workspace of [HELD, ...Array.from({ length: AGENTS }, (_, n) => `chaos-${n}`)]) {
    await rest(replicas.B.url, '/browser/end-browser', {}, as(workspace)).catch(() => undefined);
  }
  await Promise.all([replicas.A?.kill('SIGTERM'), replicas.B?.kill('SIGTERM')]);
  await redis?.stop();
  await Promise.all([rm(persistDir, { recursive: true, force: true }), rm(dataDir, { recursive: true, force: true })]);
});

const as = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });

/** One tool call over REST through a replica, recorded with the phase it ran in. */
async function call(
  replica: Name,
  workspace: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ status: Outcome['status']; body: Record<string, unknown> }> {
  const request = toolRequest(tool, args);
  const started = Date.now();
  const url = replicas[replica].url;
  let status: Outcome['status'];
  let body: Record<string, unknown> = {};
  try {
    const response = await fetch(url + request.path, {
      method: request.method,
      headers: { ...as(workspace), ...request.headers, 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    status = response.status;
    body = (await response.json()) as Record<string, unknown>;
  } catch (err) {
    status = err instanceof Error && err.name === 'TimeoutError' ? 'hung' : 'cut';
  }
  const error = body.error as { code?: string; message?: string } | undefined;
  // The phase the answer came in: a call cut by the kill began before it.
  const toKilled = killed.has(url);
  outcomes.push({
    phase,
    tool,
    status,
    ms: Date.now() - started,
    toKilled,
    code: error?.code,
    message: error?.message,
  });
  return { status, body };
}

/** What an agent behind a balancer sees: a cut connection is retried once on the other replica. */
async function agentCall(first: Name, workspace: string, tool: string, args: Record<string, unknown>) {
  const answer = await call(first, workspace, tool, args);
  if (answer.status === 'cut') {
    return call(first === 'A' ? 'B' : 'A', workspace, tool, args);
  }
  if (answer.status !== 200) {
    // As a client does after a refusal: a moment before the next call.
    await delay(250);
  }
  return answer;
}

interface Saved {
  flows: Set<string>;
  shots: Map<string, number>;
}

async function agent(n: number, stop: AbortSignal, saved: Saved): Promise<void> {
  const workspace = `chaos-${n}`;
  for (let i = 0; !stop.aborted; i++) {
    const replica: Name = (i + n) % 2 === 0 ? 'A' : 'B';
    await agentCall(replica, workspace, 'navigate', { url: `${site}/table.html?agent=${n}&i=${i}` });
    await agentCall(replica, workspace, 'extract', { selector: { css: 'h1' } });
    const flow = `f${n}-${i}`;
    const put = await agentCall(replica, workspace, 'save_flow', {
      name: flow,
      document: { description: `agent ${n}, round ${i}`, steps: [{ tool: 'outline', args: {} }] },
    });
    if (put.status === 200) {
      saved.flows.add(flow);
    }
    const shot = await agentCall(replica, workspace, 'screenshot', { save: true, filename: `s${n}-${i}` });
    if (shot.status === 200) {
      saved.shots.set(String(shot.body.name), Buffer.from(String(shot.body.data), 'base64').length);
    }
  }
}

async function admin(replica: Name, method: 'POST' | 'DELETE') {
  const response = await fetch(`${replicas[replica].url}/admin/api/workspaces/${HELD}/control`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ who: 'Kelly' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The process's resident memory (kB) and open file handles, read from /proc. */
async function usage(replica: Replica): Promise<{ rssKb: number; fds: number }> {
  const pid = replica.child.pid ?? 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssKb, fds: (await readdir(`/proc/${pid}/fd`)).length };
}

async function until(fn: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > deadline) {
      throw new Error('condition not reached in time');
    }
    await delay(200);
  }
}

/** One line per phase: how its calls answered, as docs/scaling.md shows them. */
function table(): string {
  const phases = [...new Set(outcomes.map((o) => o.phase))];
  const rows = phases.map((p) => {
    const mine = outcomes.filter((o) => o.phase === p);
    const ok = mine.filter((o) => o.status === 200).length;
    const refused = new Map<string, number>();
    for (const o of mine.filter((x) => typeof x.status === 'number' && x.status !== 200)) {
      refused.set(`${o.status} ${o.code}`, (refused.get(`${o.status} ${o.code}`) ?? 0) + 1);
    }
    const cut = mine.filter((o) => o.status === 'cut').length;
    const slowest = Math.max(...mine.map((o) => o.ms));
    const said = [...refused].map(([k, v]) => `${v} × ${k}`).join(', ') || '—';
    return `| ${p} | ${mine.length} | ${ok} | ${said} | ${cut} | ${(slowest / 1000).toFixed(1)} s |`;
  });
  return [
    '| phase | calls | answered 200 | answered with a sentence | cut (killed replica) | slowest |',
    '| --- | ---: | ---: | --- | ---: | ---: |',
    ...rows,
  ].join('\n');
}

describe('chaos, the short run', () => {
  it('answers every call, success or a sentence, and loses nothing', { timeout: 240_000 }, async () => {
    const stop = new AbortController();
    const saved = Array.from({ length: AGENTS }, (): Saved => ({ flows: new Set(), shots: new Map() }));
    const agents = saved.map((s, n) => agent(n, stop.signal, s));
    await delay(6_000);
    const before = await usage(replicas.B);

    phase = 'Control taken';
    expect((await call('B', HELD, 'navigate', { url: `${site}/welcome.html` })).status).toBe(200);
    expect((await admin('B', 'POST')).body.state).toBe('held');
    const onA = call('A', HELD, 'await_control', {});
    await delay(1_500);

    phase = 'replica A SIGKILL';
    killed.add(replicas.A.url);
    await replicas.A.kill('SIGKILL');
    // The agent's wait went with A: it calls again, on B, and the episode is still there.
    expect((await onA).status).toBe('cut');
    let onB = call('B', HELD, 'await_control', {});
    replicas.A = await spawnReplica(env);

    phase = 'Redis restart';
    await redis.stop();
    await delay(3_000);
    await redis.start();
    await until(async () => (await rest(replicas.A.url, '/ready')).status === 200);
    await until(async () => (await rest(replicas.B.url, '/ready')).status === 200);

    phase = 'hand back';
    // A wait that met the outage answered 503 with its sentence: the agent waits again.
    const settled = await Promise.race([onB.then(() => true), delay(500, false)]);
    if (settled) {
      expect((await onB).status).toBe(503);
      onB = call('B', HELD, 'await_control', {});
      await delay(1_000);
    }
    expect((await admin('A', 'DELETE')).status).toBe(200);
    expect(await onB).toMatchObject({ status: 200, body: { handed_back: true, who: 'Kelly' } });

    phase = 'after';
    await delay(6_000);
    stop.abort();
    await Promise.all(agents);
    await delay(2_000);
    const after = await usage(replicas.B);
    const printed = `${table()}\n\nreplica B: RSS ${before.rssKb} → ${after.rssKb} kB, open files ${before.fds} → ${after.fds}`;
    console.log(printed);

    // Every call answered: 200, or an error whose message is a sentence; only the killed replica cut any.
    for (const o of outcomes) {
      expect(o.status, JSON.stringify(o)).not.toBe('hung');
      expect(o.ms, JSON.stringify(o)).toBeLessThan(DEADLINE_MS);
      if (o.status === 'cut') {
        // A call sent to the killed process just before its successor took over may answer after the phase moved on.
        expect(o.toKilled, JSON.stringify(o)).toBe(true);
      } else if (o.status !== 200) {
        expect(o.message, JSON.stringify(o)).toMatch(/^[A-Z"`a-z].*[.)]$/s);
      }
    }
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(20);

    // Nothing saved is lost or crossed: each agent's flows and screenshots are its own, whole.
    for (const [n, { flows, shots }] of saved.entries()) {
      const workspace = `chaos-${n}`;
      expect(flows.size).toBeGreaterThan(0);
      const listed = await rest(replicas.B.url, '/flows?everywhere=true', undefined, as(workspace));
      const names = (listed.body.flows as { name: string }[]).map((f) => f.name);
      expect(names.filter((name) => !name.startsWith(`f${n}-`))).toEqual([]);
      for (const flow of flows) {
        expect(names, flow).toContain(flow);
      }
      for (const [name, size] of shots) {
        const file = await fetch(`${replicas.B.url}/files/screenshots/${encodeURIComponent(name)}`, {
          headers: as(workspace),
        });
        expect(file.status, name).toBe(200);
        expect((await file.arrayBuffer()).byteLength, name).toBe(size);
      }
      // The record survived Redis's restart: the same browser, still on its last page.
      const current = await rest(replicas.B.url, '/workspace', undefined, as(workspace));
      expect(current.body).toMatchObject({ browser: { alive: true } });
    }
    // Flat: no handle left open per call (a few for the connections the restart reopened).
    expect(after.fds).toBeLessThanOrEqual(before.fds + 20);
  });
});
