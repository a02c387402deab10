import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FLOW_TOOL_BYTES, MAX_FLOW_TOOLS_BYTES } from '../../src/limits.js';
import { connectMcp, startServer, type RunningServer } from '../helpers/server.js';

/** The built-in tools' own budget (test/unit/tools-list.test.ts): flow tools come on top of it. */
const BUILT_IN_BYTES = 12_000;
const ADMIN = 'flow-budget-admin';
const admin = { authorization: `Bearer ${ADMIN}` };
let running: RunningServer;

beforeAll(async () => {
  running = await startServer({
    FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-budget-')),
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
const A_LIBRARY = new RegExp(
  `over the limit of ${MAX_FLOW_TOOLS_BYTES} bytes for a library's flow tools; delete flows`,
);

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

  it('fills a library and global to their limit, refuses one more, and keeps tools/list within its bound', async () => {
    // Each of these is about 6.7 KB as a tool: four fit in a library, the fifth does not.
    const document = flowWith(70);
    const saved: string[] = [];
    let refusal: { status: number; body: Record<string, unknown> } | undefined;
    for (let i = 0; i < 10 && !refusal; i++) {
      const answer = await agentSave('budget', `flow-${i}`, document);
      if (answer.status === 200) {
        saved.push(`flow_flow-${i}`);
      } else {
        refusal = answer;
      }
    }
    expect(saved.length).toBeGreaterThanOrEqual(4);
    expect(refusal?.status).toBe(400);
    expect(messageOf(refusal ?? { body: {} })).toMatch(A_LIBRARY);
    // Replacing a flow with itself is no growth.
    expect((await agentSave('budget', 'flow-0', document)).status).toBe(200);

    // The operator's door holds global to the same rule, and so does a move into it.
    let operatorRefusal: { status: number; body: Record<string, unknown> } | undefined;
    for (let i = 0; i < 10 && !operatorRefusal; i++) {
      const answer = await operatorSave('global', `shared-${i}`, document);
      operatorRefusal = answer.status === 200 ? undefined : answer;
    }
    expect(operatorRefusal?.status).toBe(400);
    expect(messageOf(operatorRefusal ?? { body: {} })).toMatch(A_LIBRARY);
    const move = await fetch(`${running.url}/admin/api/workspaces/budget/flows/flow-0/move`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'global' }),
    });
    expect(move.status).toBe(400);
    expect(messageOf({ body: (await move.json()) as Record<string, unknown> })).toMatch(A_LIBRARY);

    // The caller lists its own full library and global's full one: the flow tools stop at the budget.
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'budget' });
    try {
      const tools = await mcp.listTools();
      const flowTools = tools.filter((t) => t.name.startsWith('flow_'));
      const flowBytes = flowTools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)) + 1, 0);
      const bytes = Buffer.byteLength(JSON.stringify({ tools }));
      expect(flowTools.length).toBeGreaterThanOrEqual(4);
      expect(flowBytes).toBeLessThanOrEqual(MAX_FLOW_TOOLS_BYTES);
      // Filled near its limit, so the bound below is tested, not just respected by a small list.
      expect(flowBytes).toBeGreaterThan(MAX_FLOW_TOOLS_BYTES * 0.75);
      expect(bytes).toBeLessThanOrEqual(BUILT_IN_BYTES + MAX_FLOW_TOOLS_BYTES);
    } finally {
      await mcp.close();
    }
  });
});
