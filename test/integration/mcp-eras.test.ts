import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import { needsApps } from '../../src/mcp/apps.js';
import { listedTools } from '../../src/mcp/tools.js';
import { connectMcp, startServer, type ProtocolEra, type RunningServer } from '../helpers/server.js';

let running: RunningServer;
beforeAll(async () => {
  running = await startServer();
});
afterAll(async () => {
  await running.close();
});

describe.each<ProtocolEra>(['2025-11-25', '2026-07-28'])('an official MCP client speaking %s', (era) => {
  it('lists the tools and drives a browser with structuredContent on every result', async () => {
    const mcp = await connectMcp(running.url, era, { workspace: `era-${era}` });
    try {
      const tools = await mcp.listTools();
      // This client names no UI extension: the rows only an app calls are not its to see.
      const hidden = new Set(CAPABILITIES.filter(needsApps).map((c) => c.name));
      const table = listedTools(true).filter((t) => !hidden.has(t.name));
      expect(hidden.size).toBeGreaterThan(0);
      expect(tools.map((t) => t.name)).toEqual(table.map((t) => t.name));
      expect(tools.map((t) => t.inputSchema)).toEqual(table.map((t) => t.inputSchema));
      const opened = await mcp.call('open_session');
      expect(opened.isError).toBe(false);
      // A named workspace remembers its browser: no handle, and never the Grid's id.
      expect(opened.structured).toMatchObject({
        browser: expect.any(String) as string,
        version: expect.any(String) as string,
      });
      expect(opened.structured).not.toHaveProperty('session_id');
      const went = await mcp.call('navigate', { url: `${inject('siteUrl')}/table.html` });
      expect(went.structured).toMatchObject({ title: 'Data table' });
      const rows = await mcp.call('extract', { selector: { css: '#data tbody tr' }, all: true });
      expect((rows.structured?.values as string[]).length).toBe(50);
      const shot = await mcp.call('screenshot');
      expect(shot.content.find((c) => c.type === 'image')?.mimeType).toBe('image/png');
      const bad = await mcp.call('navigate', { url: 'file:///etc/passwd' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain('http(s)');
      expect((await mcp.call('end_browser')).structured).toEqual({ ended: true });
    } finally {
      await mcp.close();
    }
  });
});

describe('resources', () => {
  it('serve the skill and the current workspace, each with a mirror tool giving the same answer', async () => {
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'resources' });
    try {
      const skill = await mcp.readResource('skill://selenium-flow/SKILL.md');
      expect(skill).toContain('selenium-flow');
      expect((await mcp.call('selenium_flow_skill')).structured).toEqual({ text: skill });
      const current = JSON.parse(await mcp.readResource('workspace://current')) as Record<string, unknown>;
      expect(current).toMatchObject({ workspace: 'resources', mode: 'saved', browser: null });
      expect((await mcp.call('current_workspace')).structured).toEqual(current);
    } finally {
      await mcp.close();
    }
  });
});
