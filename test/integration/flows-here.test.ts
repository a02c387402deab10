import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMcp, startServer, type McpCaller, type RunningServer } from '../helpers/server.js';

let running: RunningServer;
let dataDir: string;
let mcp: McpCaller;
const site = () => inject('siteUrl');

const flow = (urls: string) => `${urls}steps:\n  - tool: navigate\n    args: {action: back}\n`;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'flows-here-'));
  running = await startServer({ FLOW_DATA_DIR: dataDir });
  mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'flows-here' });
  for (const [name, urls] of [
    ['sign_in', `urls: ["${site()}/login.html"]\n`],
    ['orders', `urls: ["${site()}/table*"]\n`],
    ['anywhere', ''],
    // a flow named like the resource: flow://here and flow://flows/here stay two things
    ['here', 'urls: ["https://nowhere.example/*"]\n'],
  ]) {
    const saved = await mcp.call('save_flow', { name, document: flow(urls ?? '') });
    expect(saved.isError, saved.text).toBe(false);
  }
});
afterAll(async () => {
  await mcp?.call('end_browser').catch(() => undefined);
  await mcp?.close();
  await running?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const namesIn = (json: string) => (JSON.parse(json) as { flows: { name: string }[] }).flows.map((f) => f.name);

describe('flow://here', () => {
  it('lists every flow while the workspace has no page', async () => {
    expect(namesIn(await mcp.readResource('flow://here'))).toEqual(['anywhere', 'here', 'orders', 'sign_in']);
  });

  it("follows the browser's page: the flows whose urls match it, and those without urls", async () => {
    await mcp.call('navigate', { url: `${site()}/login.html` });
    expect(namesIn(await mcp.readResource('flow://here'))).toEqual(['anywhere', 'sign_in']);
    expect((await mcp.call('current_workspace')).structured?.flows_here).toEqual(['anywhere', 'sign_in']);

    await mcp.call('navigate', { url: `${site()}/table.html` });
    expect(namesIn(await mcp.readResource('flow://here'))).toEqual(['anywhere', 'orders']);
    const listed = await mcp.call('list_flows');
    expect((listed.structured?.flows as { name: string }[]).map((f) => f.name)).toEqual(['anywhere', 'orders']);
  });

  it('answers for another page when list_flows is given its url, wherever the browser is', async () => {
    const listed = await mcp.call('list_flows', { url: `${site()}/login.html` });
    expect((listed.structured?.flows as { name: string }[]).map((f) => f.name)).toEqual(['anywhere', 'sign_in']);
  });

  it('does not collide with a flow named here', async () => {
    const here = JSON.parse(await mcp.readResource('flow://flows/here')) as { name: string };
    expect(here.name).toBe('here');
    expect(namesIn(await mcp.readResource('flow://here'))).not.toContain('here');
  });
});
