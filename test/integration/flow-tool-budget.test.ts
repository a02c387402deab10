import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_FLOW_LIST_BYTES,
  MAX_FLOW_TOOL_BYTES,
  MAX_FLOW_TOOLS_BYTES,
  MAX_FLOWS_PER_LIBRARY,
} from '../../src/limits.js';
import { connectMcp, startServer, type RunningServer } from '../helpers/server.js';

/** The built-in tools' own budget (test/unit/tools-list.test.ts): flow tools come on top of it. */
const BUILT_IN_BYTES = 12_000;
const ADMIN = 'flow-budget-admin';
const admin = { authorization: `Bearer ${ADMIN}` };
let running: RunningServer;
let dataDir: string;

/** A library filled as the store keeps it, before the server starts: 1,000 saves would take the test's time. */
async function fill(library: string, prefix: string): Promise<void> {
  const dir = join(dataDir, library, 'flows');
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < MAX_FLOWS_PER_LIBRARY; i++) {
    await writeFile(join(dir, `${prefix}-${i}.yaml`), 'steps:\n  - tool: outline\n    args: {}\n');
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'flow-budget-'));
  await fill('budget-full', 'own');
  await fill('global', 'shared');
  running = await startServer({
    FLOW_DATA_DIR: dataDir,
    // As many flow tools as the setting allows: only the byte budget may hold tools/list back.
    FLOW_TOOLS_MAX: '200',
    ADMIN_TOKEN: ADMIN,
  });
});
afterAll(async () => {
  await running.close();
});

/** A flow of reads whose parameters are `count` documented strings: about 95 bytes of tool each. */
function flowWith(count: number): Record<string, unknown> {
  const properties = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `field_${i}`,
      { type: 'string', description: `value of field ${i} ${'.'.repeat(40)}` },
    ]),
  );
  return { parameters: { type: 'object', properties }, steps: [{ tool: 'outline', args: {} }] };
}

async function put(url: string, headers: Record<string, string>, document: object) {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const agentSave = (workspace: string, name: string, document: object) =>
  put(`${running.url}/flows/${name}`, { 'x-workspace': workspace }, document);
const operatorSave = (library: string, name: string, document: object) =>
  put(`${running.url}/admin/api/workspaces/${library}/flows/${name}`, admin, document);

const messageOf = (answer: { body: Record<string, unknown> }) => (answer.body.error as { message: string }).message;
const ONE_TOOL = new RegExp(`over the limit of ${MAX_FLOW_TOOL_BYTES} bytes for one flow tool; shorten`);

describe('flow tools stay small', () => {
  it('refuses one flow whose tool is over its limit, on every door, saving nothing', async () => {
    const big = flowWith(90);
    const refused = await agentSave('budget-one', 'too-big', big);
    expect(refused.status).toBe(400);
    expect(messageOf(refused)).toMatch(ONE_TOOL);
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'budget-one' });
    try {
      const saved = await mcp.call('save_flow', { name: 'too-big', document: big });
      expect(saved.isError).toBe(true);
      expect(saved.text).toMatch(ONE_TOOL);
      expect((await mcp.listTools()).map((t) => t.name)).not.toContain('flow_too-big');
    } finally {
      await mcp.close();
    }
    const operator = await operatorSave('global', 'too-big', big);
    expect(operator.status).toBe(400);
    expect(messageOf(operator)).toMatch(ONE_TOOL);
    expect((await agentSave('budget-one', 'fits', flowWith(70))).status).toBe(200);
  });

  it('holds a library at 1,000 flows on every door, and keeps tools/list within its bound', async () => {
    const small = { steps: [{ tool: 'outline', args: {} }] };
    const full = (library: string) =>
      new RegExp(`${library} holds ${MAX_FLOWS_PER_LIBRARY} flows, the most a library holds .*; delete flows`);

    const agent = await agentSave('budget-full', 'one-more', small);
    expect(agent.status).toBe(409);
    expect(agent.body.error).toMatchObject({ code: 'quota_exceeded' });
    expect(messageOf(agent)).toMatch(full('budget-full'));
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'budget-full' });
    try {
      const saved = await mcp.call('save_flow', { name: 'one-more', document: small });
      expect(saved.isError).toBe(true);
      expect(saved.text).toMatch(full('budget-full'));
    } finally {
      await mcp.close();
    }
    const operator = await operatorSave('global', 'one-more', small);
    expect(operator.status).toBe(409);
    expect(messageOf(operator)).toMatch(full('global'));
    // A model reads list_flows whole: 2,000 flows are counted past its bound, not listed.
    const listed = await fetch(`${running.url}/flows?everywhere=true`, { headers: { 'x-workspace': 'budget-full' } });
    const listing = (await listed.json()) as { flows: { name: string }[]; left_out?: number };
    expect(Buffer.byteLength(JSON.stringify(listing.flows))).toBeLessThanOrEqual(MAX_FLOW_LIST_BYTES);
    expect(listing.flows.length).toBeGreaterThan(100);
    expect(listing.flows.length + (listing.left_out ?? 0)).toBe(2 * MAX_FLOWS_PER_LIBRARY);
    // Replacing a flow takes no room.
    expect((await agentSave('budget-full', 'own-0', small)).status).toBe(200);
    expect((await operatorSave('global', 'shared-0', small)).status).toBe(200);

    // The big flows of another workspace: its own library has room, global has none to move into.
    const big = flowWith(70);
    for (let i = 0; i < 6; i++) {
      expect((await agentSave('budget-big', `big-${i}`, big)).status).toBe(200);
    }
    const move = await fetch(`${running.url}/admin/api/workspaces/budget-big/flows/big-0/move`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'global' }),
    });
    expect(move.status).toBe(409);
    expect(messageOf({ body: (await move.json()) as Record<string, unknown> })).toMatch(full('global'));

    // Six flows of about 6.7 KB each beside global's 1,000: the flow tools stop at the budget.
    const lister = await connectMcp(running.url, '2026-07-28', { workspace: 'budget-big' });
    try {
      const tools = await lister.listTools();
      const flowTools = tools.filter((t) => t.name.startsWith('flow_'));
      const flowBytes = flowTools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)) + 1, 0);
      const bytes = Buffer.byteLength(JSON.stringify({ tools }));
      expect(flowTools.length).toBeGreaterThanOrEqual(4);
      expect(flowBytes).toBeLessThanOrEqual(MAX_FLOW_TOOLS_BYTES);
      // Filled near its limit, so the bound below is tested, not just respected by a small list.
      expect(flowBytes).toBeGreaterThan(MAX_FLOW_TOOLS_BYTES * 0.75);
      expect(bytes).toBeLessThanOrEqual(BUILT_IN_BYTES + MAX_FLOW_TOOLS_BYTES);
    } finally {
      await lister.close();
    }
  });
});
