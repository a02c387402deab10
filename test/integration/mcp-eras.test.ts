import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
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
      expect(tools.map((t) => t.name)).toContain('navigate');
      const opened = await mcp.call('open_session');
      expect(opened.isError).toBe(false);
      expect(opened.structured?.session_id).toMatch(/^[0-9a-f-]+$/);
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
