import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import { APP_MIME_TYPE, APPS, appUri, needsApps, toolsFor } from '../../src/mcp/apps.js';
import { listResources, RESOURCE_DEFINITIONS } from '../../src/mcp/resources.js';
import { listedTools } from '../../src/mcp/tools.js';

const NO_APPS = { apps: false, control: false };
const APPS_WITH_CONTROL = { apps: true, control: true };

describe('MCP Apps', () => {
  it('cost a client without the extension at most 200 B of tools/list, and list it nothing that needs an app', () => {
    const tools = listedTools(true);
    // The rows that need an app are left out: the live app's buttons, and watch, whose answer is the app.
    const rowsBefore = tools.filter((t) => !needsApps(CAPABILITIES.find((c) => c.name === t.name)!));
    const withoutApps = toolsFor(tools, NO_APPS);
    expect(withoutApps.map((t) => t.name)).toEqual(rowsBefore.map((t) => t.name));
    // A host may render without announcing (VS Code, basic-host): the rows a model calls name their app.
    expect(withoutApps.find((t) => t.name === 'workspace_files')?._meta).toEqual({
      ui: { resourceUri: appUri('files') },
    });
    const extra =
      Buffer.byteLength(JSON.stringify({ tools: withoutApps })) -
      Buffer.byteLength(JSON.stringify({ tools: rowsBefore }));
    expect(extra).toBeGreaterThan(0);
    expect(extra).toBeLessThanOrEqual(200);
    for (const name of ['watch', 'live_ticket', 'take_control', 'hand_back']) {
      expect(
        withoutApps.map((t) => t.name),
        name,
      ).not.toContain(name);
      expect(toolsFor(tools, APPS_WITH_CONTROL).map((t) => t.name)).toContain(name);
    }
    expect(listResources(false).some((r) => r.uri.startsWith('ui://'))).toBe(false);
    expect(listResources(false)).toEqual(listResources(true).filter((r) => !r.uri.startsWith('ui://')));
  });

  it('list the Control buttons only to a client whose app may take Control (CONTROL_BY, a host-held token)', () => {
    const watching = toolsFor(listedTools(true), { apps: true, control: false }).map((t) => t.name);
    expect(watching).toContain('watch');
    expect(watching).toContain('live_ticket');
    expect(watching).not.toContain('take_control');
    expect(watching).not.toContain('hand_back');
    expect(toolsFor(listedTools(true), { apps: false, control: true }).map((t) => t.name)).not.toContain(
      'take_control',
    );
  });

  it('name each row’s app in its _meta for a client that renders apps', () => {
    const withApps = toolsFor(listedTools(true), APPS_WITH_CONTROL);
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
