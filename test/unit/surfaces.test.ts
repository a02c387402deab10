import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES, MIRROR_TOOLS, REST_CAPABILITIES } from '../../src/capabilities/index.js';
import { jsonSchemaOf } from '../../src/capabilities/json-schema.js';
import { loadConfig } from '../../src/config.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { fastifyPath } from '../../src/http/routes.js';
import { listResources, listResourceTemplates } from '../../src/mcp/resources.js';
import { listedSchema, listedTools } from '../../src/mcp/tools.js';
import { createServer } from '../../src/server.js';
import { GENERATED } from '../../scripts/gen-docs.js';

type Operation = { 'x-mcp-tool': string; requestBody?: { content: { 'application/json': { schema: unknown } } } };

describe('every surface is rendered from the capability table', () => {
  it('lists one MCP tool per capability, with the table’s schemas and annotations', () => {
    const tools = listedTools(true);
    expect(tools.map((t) => t.name)).toEqual(CAPABILITIES.map((c) => c.name));
    for (const capability of CAPABILITIES) {
      const tool = tools.find((t) => t.name === capability.name);
      expect(tool?.inputSchema).toEqual(listedSchema(capability));
      expect(tool).not.toHaveProperty('outputSchema');
      expect(tool?.annotations.readOnlyHint ?? false).toBe(capability.readOnly);
      expect(tool?.annotations.destructiveHint).toBe(capability.readOnly ? undefined : capability.destructive);
      if (capability.kind === 'act') {
        expect(capability.readOnly).toBe(false);
      }
    }
  });

  it('promises read-only only for tools that never write a file nor move the browser', () => {
    const readOnly = listedTools(true)
      .filter((t) => t.annotations.readOnlyHint)
      .map((t) => t.name);
    // print and screenshot {save} write files, extract {url} navigates, assert {script} runs any JavaScript.
    for (const writes of [
      'print',
      'screenshot',
      'extract',
      'assert',
      'keep_file',
      'save_flow',
      'run_flow',
      'execute_script',
    ]) {
      expect(readOnly).not.toContain(writes);
    }
    expect(readOnly).toContain('outline');
    expect(readOnly).toContain('list_flows');
  });

  it('lists a selector as an object of css or xpath, or a list; the table’s schema enforces exactly one', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const interact = CAPABILITIES.find((c) => c.name === 'interact');
    const listed = new Ajv2020().compile(listedTools(true).find((t) => t.name === 'interact')?.inputSchema ?? {});
    const full = new Ajv2020().compile(interact ? jsonSchemaOf(interact.input, 'input') : {});
    for (const selector of [{ css: '#a' }, { xpath: '//a' }, [{ css: '#a' }, { xpath: '//a' }]]) {
      expect(listed({ action: 'click', selector })).toBe(true);
      expect(full({ action: 'click', selector })).toBe(true);
    }
    expect(listed({ action: 'click', selector: '#a' })).toBe(false);
    for (const selector of [{}, { css: '#a', xpath: '//a' }, { id: 'a' }, '#a']) {
      expect(full({ action: 'click', selector })).toBe(false);
    }
  });

  it('describes the arguments tools share once, in the instructions, not in each tool', async () => {
    const { SHARED_ARGUMENTS } = await import('../../src/mcp/tools.js');
    for (const tool of listedTools(true)) {
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      for (const name of Object.keys(SHARED_ARGUMENTS)) {
        expect(properties[name]?.description, `${tool.name}.${name}`).toBeUndefined();
      }
    }
  });

  it('drops only the mirror tools when mirror tools are off', () => {
    const names = listedTools(false).map((t) => t.name);
    expect(names).not.toContain('current_workspace');
    expect(names).not.toContain('selenium_flow_skill');
    expect(names).toHaveLength(CAPABILITIES.length - MIRROR_TOOLS.size);
  });

  it('lists a resource or template for every uri a row mirrors, and a row for every mirror tool', () => {
    const listed = [...listResources().map((r) => r.uri), ...listResourceTemplates().map((t) => t.uriTemplate)];
    const mirrored = CAPABILITIES.flatMap((c) => c.mirrors.map((m) => m.uri));
    expect(listed).toEqual(expect.arrayContaining(mirrored));
    expect(mirrored).toEqual(
      expect.arrayContaining([
        'workspace://current',
        'flow://here',
        'flow://flows/{name}',
        'secret://secrets',
        'workspace://network',
      ]),
    );
    expect([...MIRROR_TOOLS].sort()).toEqual(
      [
        'current_workspace',
        'get_flow',
        'list_flows',
        'list_secrets',
        'selenium_flow_skill',
        'workspace_files',
        'workspace_network',
      ].sort(),
    );
  });

  it('documents one OpenAPI operation per capability, its body being the tool input schema', () => {
    const paths = openApiDocument('test').paths as Record<string, Record<string, Operation>>;
    const operations = Object.values(paths).flatMap((byMethod) => Object.values(byMethod));
    const tools = operations.flatMap((o) => (o['x-mcp-tool'] ? [o['x-mcp-tool']] : []));
    expect(tools.sort()).toEqual(REST_CAPABILITIES.map((c) => c.name).sort());
    for (const capability of REST_CAPABILITIES) {
      const operation = paths[capability.http.path]?.[capability.http.method.toLowerCase()];
      expect(operation?.['x-mcp-tool']).toBe(capability.name);
      if (capability.http.method === 'POST') {
        expect(operation?.requestBody?.content['application/json'].schema).toEqual(
          jsonSchemaOf(capability.input, 'input'),
        );
      }
    }
  });

  it.each(['on', 'off'])(
    'documents every REST route the server serves, and serves every route it documents (MIRROR_TOOLS=%s)',
    async (mirrorTools) => {
      const server = createServer(
        loadConfig({}, { LOG_LEVEL: 'silent', MIRROR_TOOLS: mirrorTools }),
        'http://127.0.0.1:9',
      );
      await server.app.ready();
      const paths = openApiDocument('test').paths as Record<string, Record<string, { operationId: string }>>;
      const documented = Object.entries(paths).flatMap(([path, byMethod]) =>
        Object.keys(byMethod).map((method) => `${method.toUpperCase()} ${path}`),
      );
      for (const route of documented) {
        const [method = '', path = ''] = route.split(' ');
        expect(server.app.hasRoute({ method, url: fastifyPath(path) }), route).toBe(true);
      }
      // What Fastify serves, counted from its own route tree (one line a node, with that node's
      // methods; HEAD comes with every GET). Documented ⊆ served and equal counts: the same set.
      const servedCount = server.app
        .printRoutes({ commonPrefix: false })
        .split('\n')
        // Under a root that serves a page, children print without their leading slash.
        .filter((line) => !/[\s/]mcp \(/.test(line))
        // The OAuth discovery addresses (and their `/*` children) answer only 404
        // (src/http/oauth-discovery.ts): not API routes.
        .filter((line, i, all) => !isOAuthDiscovery(line) && !(/── \* \(/.test(line) && isOAuthDiscovery(all[i - 1])))
        .flatMap((line) => (/\(([A-Z, ]+)\)$/.exec(line)?.[1] ?? '').split(', ').filter((m) => m && m !== 'HEAD'));
      expect(servedCount).toHaveLength(documented.length);
      const ids = Object.values(paths).flatMap((byMethod) => Object.values(byMethod).map((o) => o.operationId));
      expect(new Set(ids).size).toBe(ids.length);
      await server.close();
    },
  );

  it("gives an app's buttons no REST route and no OpenAPI operation: only a host's app calls them", () => {
    const buttons = CAPABILITIES.filter((c) => c.http === undefined).map((c) => c.name);
    expect(buttons.sort()).toEqual(['hand_back', 'live_ticket', 'take_control']);
    const operations = Object.values(openApiDocument('test').paths as Record<string, Record<string, Operation>>);
    const documented = operations.flatMap((byMethod) => Object.values(byMethod).map((o) => o['x-mcp-tool']));
    for (const name of buttons) {
      expect(documented).not.toContain(name);
    }
  });

  it.each(['on', 'off'])('serves an HTTP route for every capability (MIRROR_TOOLS=%s)', async (mirrorTools) => {
    const server = createServer(
      loadConfig({}, { LOG_LEVEL: 'silent', MIRROR_TOOLS: mirrorTools }),
      'http://127.0.0.1:9',
    );
    await server.app.ready();
    for (const capability of REST_CAPABILITIES) {
      expect(
        server.app.hasRoute({ method: capability.http.method, url: fastifyPath(capability.http.path) }),
        capability.name,
      ).toBe(true);
    }
    await server.close();
  });

  it('keeps the committed reference docs and the README settings table in step (run npm run gen)', async () => {
    for (const [path, render] of Object.entries(GENERATED)) {
      const committed = await readFile(path, 'utf8');
      expect(committed, path).toBe(render(committed));
    }
  });
});

describe('the capability table itself', () => {
  it('names tools in snake_case, routes in kebab-case, and refuses unknown arguments', () => {
    for (const capability of CAPABILITIES) {
      expect(capability.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(capability.input.safeParse({ definitely_not_an_argument: 1 }).success).toBe(false);
    }
  });

  it('never lets open_session or end_browser be a flow step', () => {
    const runnable = CAPABILITIES.filter((c) => c.runnableInFlow).map((c) => c.name);
    expect(runnable).not.toContain('open_session');
    expect(runnable).not.toContain('end_browser');
  });

  it('has one row that answers as a task while held, and its hand-back read is a read that opens no browser', () => {
    // A task's record does not name its tool (mcp/tasks.ts settles it with ROLES.awaitsControl, the one such row).
    const tasks = CAPABILITIES.filter((c) => c.answersAsTaskWhileHeld);
    expect(tasks.map((c) => c.name)).toEqual(['await_control']);
    for (const capability of CAPABILITIES.filter((c) => c.handBackRead)) {
      const read = capability.handBackRead!;
      expect(read.tool.kind).toBe('read');
      expect(read.tool.attach).toBe('existing');
      expect(read.tool.input.safeParse(read.args).success).toBe(true);
    }
  });
});

function isOAuthDiscovery(line = ''): boolean {
  return /\.well-known\/(oauth-|openid-)|[\s/]register \(/.test(line);
}
