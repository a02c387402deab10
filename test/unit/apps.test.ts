import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import { APP_MIME_TYPE, APPS, appUri, needsApps, toolsFor } from '../../src/mcp/apps.js';
import { listResources, RESOURCE_DEFINITIONS } from '../../src/mcp/resources.js';
import { listedTools } from '../../src/mcp/tools.js';

describe('MCP Apps', () => {
  it('leave tools/list and resources/list as they were for a client without the extension', () => {
    const tools = listedTools(true);
    // …but for the rows that need an app: the live app's buttons, and watch, whose answer is the app.
    const rowsBefore = tools.filter((t) => !needsApps(CAPABILITIES.find((c) => c.name === t.name)!));
    expect(JSON.stringify(toolsFor(tools, false))).toBe(JSON.stringify(rowsBefore));
    const withoutApps = toolsFor(tools, false).map((t) => t.name);
    expect(withoutApps).toContain('workspace_files');
    for (const name of ['watch', 'live_ticket', 'take_control', 'hand_back']) {
      expect(withoutApps, name).not.toContain(name);
      expect(toolsFor(tools, true).map((t) => t.name)).toContain(name);
    }
    expect(listResources(false).some((r) => r.uri.startsWith('ui://'))).toBe(false);
    expect(listResources(false)).toEqual(listResources(true).filter((r) => !r.uri.startsWith('ui://')));
  });

  it('name each row’s app in its _meta for a client that renders apps, and only there', () => {
    const withApps = toolsFor(listedTools(true), true);
    const named = withApps.filter((t) => t._meta).map((t) => [t.name, t._meta?.ui.resourceUri]);
    expect(named).toContainEqual(['workspace_files', appUri('files')]);
    for (const [name, uri] of named) {
      expect(CAPABILITIES.find((c) => c.name === name)?.app?.name, name).toBe(uri?.replace('ui://selenium-flow/', ''));
    }
    const extra =
      Buffer.byteLength(JSON.stringify({ tools: withApps })) -
      Buffer.byteLength(JSON.stringify({ tools: listedTools(true) }));
    // a _meta of under 100 B per row that names an app
    expect(extra).toBeLessThanOrEqual(100 * CAPABILITIES.filter((c) => c.app).length);
  });

  it('serve each app, and only a named one, as an app document', () => {
    for (const capability of CAPABILITIES.filter((c) => c.app)) {
      expect(
        APPS.map((a) => a.name),
        capability.name,
      ).toContain(capability.app?.name);
    }
    const listed = listResources(true).filter((r) => r.uri.startsWith('ui://'));
    expect(listed.map((r) => r.uri)).toEqual(APPS.map((a) => appUri(a.name)));
    expect(new Set(listed.map((r) => r.mimeType))).toEqual(new Set([APP_MIME_TYPE]));
    expect(RESOURCE_DEFINITIONS.filter((r) => r.app).length).toBe(APPS.length);
  });
});
