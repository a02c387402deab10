import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../src/capabilities/call/call.js';
import { capabilityNamed } from '../../src/capabilities/index.js';
import { SKILL_URI } from '../../src/capabilities/skill.js';
import { loadConfig } from '../../src/config.js';
import { listResources, listResourceTemplates, readResource } from '../../src/mcp/resources.js';
import { createServer, type HttpServer } from '../../src/server.js';
import { callerOfWorkspace } from '../../src/workspace/caller.js';

const SKILL = 'skills/selenium-flow/SKILL.md';
const caller = callerOfWorkspace('skill-reader');
let server: HttpServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'skill-resources-'));
  // No Grid: nothing here opens a browser, so the Grid's address names no server.
  server = createServer(loadConfig({}, { LOG_LEVEL: 'silent', FLOW_DATA_DIR: dataDir }), 'http://127.0.0.1:9');
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the skill over MCP alone', () => {
  it("resolves every link of SKILL.md to a listed resource holding that file's text", async () => {
    const skill = await readFile(SKILL, 'utf8');
    const links = [...skill.matchAll(/\]\((references\/[^)]+\.md)\)/g)].map((m) => m[1] ?? '');
    expect(links.length).toBeGreaterThanOrEqual(4);
    const listed = listResources().map((r) => r.uri);
    for (const link of new Set(links)) {
      const uri = new URL(link, SKILL_URI).href;
      expect(listed, uri).toContain(uri);
      const [content] = await readResource(server.deps, caller, uri);
      expect(content).toMatchObject({ uri, mimeType: 'text/markdown' });
      expect((content as { text: string }).text).toBe(await readFile(`skills/selenium-flow/${link}`, 'utf8'));
    }
    expect(listResourceTemplates().map((t) => t.uriTemplate)).toContain('skill://selenium-flow/references/{reference}');
  });

  it('reads a reference through the skill tool too, for a client without resources', async () => {
    const tool = capabilityNamed('selenium_flow_skill');
    const answer = await callTool(server.deps, tool!, { reference: 'FLOWS.md' }, caller);
    expect(answer.text).toBe(await readFile('skills/selenium-flow/references/FLOWS.md', 'utf8'));
    expect((await callTool(server.deps, tool!, {}, caller)).text).toBe(await readFile(SKILL, 'utf8'));
  });

  it('opens no other path: a name outside the references is a 404 naming the ones there are', async () => {
    const tool = capabilityNamed('selenium_flow_skill');
    for (const reference of ['../SKILL.md', 'flows.md', 'FLOWS.md/', '/etc/passwd', '..%2FSKILL.md']) {
      await expect(callTool(server.deps, tool!, { reference }, caller), reference).rejects.toThrow(
        /^No skill reference .*; the skill has FILES\.md, FLOWS\.md, NETWORK\.md, SECRETS\.md\.$/,
      );
    }
    await expect(readResource(server.deps, caller, 'skill://selenium-flow/references/..%2FSKILL.md')).rejects.toThrow(
      /No skill reference/,
    );
  });
});

describe('list_flows {url}', () => {
  beforeAll(async () => {
    const flows = join(dataDir, 'skill-reader', 'flows');
    await mkdir(flows, { recursive: true });
    const flow = (urls: string) => `${urls}steps:\n  - tool: navigate\n    args: {action: back}\n`;
    await writeFile(join(flows, 'shop.yaml'), flow('urls: ["https://shop.example/*"]\n'));
    await writeFile(join(flows, 'admin.yaml'), flow('urls: ["https://admin.example/users/*", "*/login"]\n'));
    await writeFile(join(flows, 'anywhere.yaml'), flow(''));
  });

  const names = async (args: Record<string, unknown>) => {
    const answer = await callTool(server.deps, capabilityNamed('list_flows')!, args, caller);
    return (answer.flows as { name: string }[]).map((f) => f.name);
  };

  it('answers the flows whose urls globs match the url, and those with no urls', async () => {
    expect(await names({ url: 'https://shop.example/cart' })).toEqual(['anywhere', 'shop']);
    // A path-less URL matches as if it ended in /.
    expect(await names({ url: 'https://shop.example' })).toEqual(['anywhere', 'shop']);
    expect(await names({ url: 'https://admin.example/users/7' })).toEqual(['admin', 'anywhere']);
    expect(await names({ url: 'https://elsewhere.example/login' })).toEqual(['admin', 'anywhere']);
    expect(await names({ url: 'https://elsewhere.example/' })).toEqual(['anywhere']);
  });

  it('answers every flow without a url and with no browser, or with everywhere', async () => {
    expect(await names({})).toEqual(['admin', 'anywhere', 'shop']);
    expect(await names({ everywhere: true })).toEqual(['admin', 'anywhere', 'shop']);
  });

  it('refuses url and everywhere together, saying which to pass', async () => {
    await expect(names({ url: 'https://shop.example/', everywhere: true })).rejects.toThrow(
      'Pass url (the flows for that page) or everywhere (every flow), not both.',
    );
  });
});
