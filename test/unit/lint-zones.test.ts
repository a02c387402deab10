import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The project's own boundary blocks, without the type-aware rules a file that does not exist cannot have. */
async function linter(): Promise<ESLint> {
  const configPath = `${root}eslint.config.js`;
  const config = (await import(configPath)) as { architecture: Linter.Config; capabilitiesBoundary: Linter.Config };
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      { plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin } },
      config.architecture,
      config.capabilitiesBoundary,
    ],
  });
}

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await (await linter()).lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('lint holds the architecture', () => {
  it('fails an import of the MCP surface from flows/', async () => {
    const found = await problems('src/flows/forbidden.ts', "export { buildMcpServer } from '../mcp/server.js';\n");
    expect(found.join('\n')).toMatch(/import-x\/no-restricted-paths: .*flows\/ runs steps/);
  });

  it('fails an import of the call path from flows/', async () => {
    const found = await problems(
      'src/flows/forbidden.ts',
      "export { callTool } from '../capabilities/call/call.js';\n",
    );
    expect(found.join('\n')).toMatch(/import-x\/no-restricted-paths/);
  });

  it('fails an import of the call path or a surface from admin/, events/ and ops/', async () => {
    const imports = [
      "export type { CallDeps } from '../capabilities/call/call.js';\n",
      "export { buildMcpServer } from '../mcp/server.js';\n",
      "export { buildApp } from '../http/app.js';\n",
    ];
    for (const folder of ['admin', 'events', 'ops']) {
      for (const code of imports) {
        const found = await problems(`src/${folder}/forbidden.ts`, code);
        expect(found.join('\n'), `${folder}: ${code}`).toMatch(/import-x\/no-restricted-paths: .*take narrow deps/);
      }
    }
  });

  it('fails an import of browser/ from workspace/', async () => {
    const found = await problems(
      'src/workspace/forbidden.ts',
      "export { readPageState } from '../browser/page-state.js';\n",
    );
    expect(found.join('\n')).toMatch(/import-x\/no-restricted-paths: .*workspace\/ remembers browsers/);
  });

  it('fails an import of redis/ from a domain, and lets parts.ts through', async () => {
    const store = "export { RedisRecordStore } from '../redis/record-store.js';\n";
    for (const domain of ['workspace', 'live', 'events']) {
      const found = await problems(`src/${domain}/forbidden.ts`, store);
      expect(found.join('\n'), domain).toMatch(/import-x\/no-restricted-paths: .*Redis lives in redis\//);
    }
    expect(await problems('src/parts.ts', "export { openRedisStores } from './redis/index.js';\n")).toEqual([]);
  });

  it('fails an import of a surface from redis/', async () => {
    const found = await problems('src/redis/forbidden.ts', "export { buildMcpServer } from '../mcp/server.js';\n");
    expect(found.join('\n')).toMatch(/import-x\/no-restricted-paths: .*redis\/ implements the stores/);
  });

  it('fails an import of files/ internals from http/, and lets its public face through', async () => {
    const internal = await problems('src/http/forbidden.ts', "export { DiskFiles } from '../files/store.js';\n");
    expect(internal.join('\n')).toMatch(/import-x\/no-restricted-paths/);
    expect(await problems('src/http/allowed.ts', "export { uriOf } from '../files/uris.js';\n")).toEqual([]);
  });

  it('fails an import of a row from mcp/ and http/, and lets the table and its roles through', async () => {
    const row = "export { runFlowTool } from '../capabilities/tools/flows.js';\n";
    for (const surface of ['mcp', 'http']) {
      const found = await problems(`src/${surface}/forbidden.ts`, row);
      expect(found.join('\n'), surface).toMatch(/import-x\/no-restricted-paths: .*a ROLES entry, not an import/);
    }
    const roles = "export { CAPABILITIES, ROLES } from '../capabilities/index.js';\n";
    expect(await problems('src/mcp/allowed.ts', roles)).toEqual([]);
  });

  it('fails a WebDriver call from capabilities/, and lets a type through', async () => {
    const call = await problems('src/capabilities/forbidden.ts', "export { Key } from 'selenium-webdriver';\n");
    expect(call.join('\n')).toMatch(/no-restricted-imports: .*WebDriver calls live in browser/);
    const type = "import type { WebDriver } from 'selenium-webdriver';\nexport type D = WebDriver;\n";
    expect(await problems('src/capabilities/allowed.ts', type)).toEqual([]);
  });

  it("fails an import of live/'s Control side from its monitor and tunnel, and lets live/ use both", async () => {
    const control = "export { Controls } from '../control.js';\n";
    for (const folder of ['monitor', 'tunnel']) {
      const found = await problems(`src/live/${folder}/forbidden.ts`, control);
      expect(found.join('\n'), folder).toMatch(/import-x\/no-restricted-paths: .*serve the live view and Control/);
    }
    const tunnel = "export { Tunnel } from '../tunnel/tunnel.js';\n";
    expect((await problems('src/live/monitor/forbidden.ts', tunnel)).join('\n')).toMatch(/are apart/);
    const monitor = "export { BidiMonitors } from '../monitor/monitor.js';\n";
    expect((await problems('src/live/tunnel/forbidden.ts', monitor)).join('\n')).toMatch(/are apart/);
    const both = "export { Tunnel } from './tunnel/tunnel.js';\nexport { BidiMonitors } from './monitor/monitor.js';\n";
    expect(await problems('src/live/allowed.ts', both)).toEqual([]);
  });

  it('fails an import cycle', async () => {
    // errors.ts is imported by the rows; a row imported back from it closes a loop.
    const found = await problems('src/errors.ts', "export { CAPABILITIES } from './capabilities/index.js';\n");
    expect(found.join('\n')).toMatch(/import-x\/no-cycle/);
  });
  it('fails an import of the embedded Grid outside commands.ts, and lets commands.ts through', async () => {
    const start = "export { startEmbeddedGrid } from '../embedded-grid/index.js';\n";
    expect((await problems('src/grid/forbidden.ts', start)).join('\n')).toMatch(/Only commands.ts starts/);
    const top = "export { startEmbeddedGrid } from './embedded-grid/index.js';\n";
    expect((await problems('src/parts.ts', top)).join('\n')).toMatch(/Only commands.ts starts/);
    expect(await problems('src/commands.ts', top)).toEqual([]);
  });
});
