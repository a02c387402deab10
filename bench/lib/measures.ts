import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { freePort } from '../../src/embedded-grid/index.js';
import { listedTools } from '../../src/mcp/tools.js';
import { printedSelectors } from '../../src/browser/outline.js';
import { withTimeout, type Cleanup } from './cleanup.js';
import { McpToolCaller, connectHttp } from './mcp.js';
import { processTree, rssBytes, stopProcesses } from './processes.js';
import { summarize, type Summary } from './stats.js';
import { pages } from './task.js';
import { runTwelveCalls } from './tools-task.js';

// ---------------------------------------------------------------- tools/list

export interface ToolsListSize {
  tools: number;
  /** JSON of the result as the official client returns it (`{"tools":[…]}` plus any `_meta`) */
  resultBytes: number;
  /** JSON of `{"tools":[…]}` alone: what a model is shown */
  toolsBytes: number;
  /** the same without the workspace's flow tools (flow_<name>): every default tool, the bar's measure */
  defaultToolsBytes: number;
  /** the same list with MIRROR_TOOLS=off (no resource-mirror tools) */
  withoutMirrorsBytes: number;
  perTool: { name: string; bytes: number; description: number; inputSchema: number; rest: number }[];
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

export async function measureToolsList(client: Client): Promise<ToolsListSize> {
  const result = await client.listTools(undefined, { cacheMode: 'bypass' });
  const tools = result.tools as unknown as Record<string, unknown>[];
  const perTool = tools.map((t) => {
    const bytes = jsonBytes(t);
    const description = jsonBytes(t.description ?? '');
    const inputSchema = jsonBytes(t.inputSchema ?? {});
    return { name: String(t.name), bytes, description, inputSchema, rest: bytes - description - inputSchema };
  });
  return {
    tools: tools.length,
    resultBytes: jsonBytes(result),
    toolsBytes: jsonBytes({ tools }),
    defaultToolsBytes: jsonBytes({ tools: tools.filter((t) => !String(t.name).startsWith('flow_')) }),
    withoutMirrorsBytes: jsonBytes({ tools: listedTools(false) }),
    perTool: perTool.sort((a, b) => b.bytes - a.bytes),
  };
}

// ---------------------------------------------------------------- outline of the heavy page

export interface OutlineSize {
  /** the `outline` string itself */
  outlineBytes: number;
  /** the whole text block the model reads (JSON with url, title, outline) */
  textBytes: number;
  lines: number;
  selectorsChecked: number;
  /** selectors that match no element or more than one */
  badSelectors: string[];
  formControls: number;
  /** form fields and buttons of the page the outline gives no working selector for */
  missingControls: string[];
}

const CHECK_SELECTORS = `
const found = new Set(); const bad = [];
for (const s of arguments[0]) {
  let n; try { n = document.querySelectorAll(s); } catch { bad.push(s); continue; }
  if (n.length === 1) found.add(n[0]); else bad.push(s);
}
const controls = [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')];
return { bad, controls: controls.length, missing: controls.filter((c) => !found.has(c)).map((c) => c.id || c.outerHTML.slice(0, 60)) };`;

export async function measureOutline(baseUrl: string, siteUrl: string, cleanup: Cleanup): Promise<OutlineSize> {
  const client = await connectHttp(baseUrl, 'bench-outline', 'bench-outline');
  cleanup.add('outline MCP client', () => client.close());
  const tools = new McpToolCaller(client);
  try {
    await tools.call('navigate', { url: pages(siteUrl).heavy });
    const answer = await tools.call('outline', {});
    const outline = typeof answer.structured.outline === 'string' ? answer.structured.outline : '';
    const selectors = printedSelectors(outline);
    const checked = await tools.call('execute_script', { script: CHECK_SELECTORS, args: [selectors] });
    const result = checked.structured.result as { bad: string[]; controls: number; missing: string[] };
    return {
      outlineBytes: Buffer.byteLength(outline),
      textBytes: answer.textBytes,
      lines: outline.split('\n').length,
      selectorsChecked: selectors.length,
      badSelectors: result.bad,
      formControls: result.controls,
      missingControls: result.missing,
    };
  } finally {
    await tools.call('end_browser', {}).catch(() => undefined);
    await cleanup.release('outline MCP client');
  }
}

// ---------------------------------------------------------------- cold start and memory

export interface ServerEntry {
  command: string;
  args: string[];
  label: string;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether a build's output file exists and is no older than anything in src/. */
function builtFromCurrentSrc(repo: string, output: string): boolean {
  try {
    return statSync(output).mtimeMs >= newestMtime(join(repo, 'src'));
  } catch {
    return false;
  }
}

/**
 * `node dist/cli.js`, built first when dist/ is missing or older than src/; when the build
 * fails (src/ is being edited), tsx, and the report says so.
 */
export function serverEntry(repo: string): ServerEntry {
  const cli = join(repo, 'dist', 'cli.js');
  if (!builtFromCurrentSrc(repo, cli)) {
    process.stderr.write('bench: dist/ is missing or older than src/: npm run build\n');
    const built = spawnSync('npm', ['run', 'build'], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 180_000,
    });
    if (built.status !== 0) {
      process.stderr.write(
        `bench: the build failed, cold start is measured with tsx instead\n${built.stderr.toString().slice(-2000)}\n`,
      );
      return {
        command: process.execPath,
        args: ['--import', 'tsx', join(repo, 'src', 'cli.ts')],
        label: 'node --import tsx src/cli.ts (dist/ did not build)',
      };
    }
  }
  return { command: process.execPath, args: [cli], label: 'node dist/cli.js' };
}

// ---------------------------------------------------------------- where a cold start goes

/**
 * src/ compiled module by module (tsc), for the breakdowns that charge a start to each import:
 * dist/ is one bundle (scripts/bundle.mjs), where a module is no longer a file. Kept in
 * .bench/modules (git-ignored), compiled again when src/ is newer. Returns its directory.
 */
export function moduleBuild(repo: string): string {
  const dir = join(repo, '.bench', 'modules');
  if (!builtFromCurrentSrc(repo, join(dir, 'cli.js'))) {
    const built = spawnSync(
      process.execPath,
      [
        join(repo, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        'tsconfig.build.json',
        '--noEmit',
        'false',
        '--outDir',
        dir,
      ],
      { cwd: repo, encoding: 'utf8', timeout: 180_000 },
    );
    if (built.status !== 0) {
      throw new Error(`bench: tsc could not compile src/ module by module: ${built.stdout.slice(-2000)}`);
    }
  }
  return dir;
}

/**
 * Runs in a fresh `node` (cwd = the repo), in one of two modes, and prints one JSON line.
 * - chain: Node's own boot, each heavy import in the order the server needs them (a module
 *   shared by two is charged to the first), createServer, listen. The rows add up to a boot.
 * - parts: after the imports (not timed), the first call of each expensive piece a server may
 *   run at boot or on first use: rendering tools/list and the OpenAPI documents. Not added up.
 */
const BOOT_SCRIPT = `
const mod = (path) => import(new URL(path, 'file://' + process.env.MODULES + '/').href);
const rows = [];
const time = async (name, work) => {
  const s = performance.now();
  try { await work(); rows.push([name, performance.now() - s]); } catch (err) { rows.push([name + ' (failed: ' + String(err).slice(0, 80) + ')', NaN]); }
};
if (process.env.BOOT_MODE === 'chain') {
  rows.push(['node boot (process start → first line of a script)', performance.now()]);
  await time('import zod', () => import('zod'));
  await time('import selenium-webdriver', () => import('selenium-webdriver'));
  await time('import fastify', () => import('fastify'));
  await time('import @modelcontextprotocol/server', () => import('@modelcontextprotocol/server'));
  await time('import @modelcontextprotocol/node', () => import('@modelcontextprotocol/node'));
  await time('import server.js (the capability table, yaml, the rest of ours)', () => mod('server.js'));
  let server;
  await time('createServer (tools/list, OpenAPI, Fastify app and routes, MCP handler)', async () => {
    const { createServer } = await mod('server.js');
    const { loadConfig } = await mod('config.js');
    server = createServer(loadConfig({}, { PORT: '0', LOG_LEVEL: 'silent' }), 'http://127.0.0.1:9');
  });
  await time('listen', () => server.app.listen({ host: '127.0.0.1', port: 0 }));
  await server.close();
} else {
  const tools = await mod('mcp/tools.js');
  const openapi = await mod('http/openapi.js');
  await time('render tools/list (zod → JSON Schema)', async () => { tools.listedTools(true); });
  await time('build the OpenAPI document (JSON)', async () => { openapi.openApiDocument('0.0.0'); });
  await time('build the OpenAPI document (YAML)', async () => { openapi.openApiYaml('0.0.0'); });
}
console.log(JSON.stringify(rows));
`;

export type BootCosts = { step: string; ms: number; part: boolean }[];

function bootRows(repo: string, mode: 'chain' | 'parts', runs: number): BootCosts | undefined {
  const modules = moduleBuild(repo);
  const samples: [string, number][][] = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', BOOT_SCRIPT], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SE_OFFLINE: 'true',
        SE_AVOID_STATS: 'true',
        BOOT_MODE: mode,
        MODULES: modules,
      },
    });
    const line = result.stdout.trim().split('\n').at(-1);
    if (result.status !== 0 || !line) {
      process.stderr.write(`bench: the boot breakdown (${mode}) failed: ${result.stderr.slice(-1000)}\n`);
      return undefined;
    }
    samples.push(JSON.parse(line) as [string, number][]);
  }
  return (samples[0] ?? []).map(([step], i) => ({
    step,
    ms: summarize(samples.map((s) => s[i]?.[1] ?? Number.NaN)).median,
    part: mode === 'parts',
  }));
}

export function measureBootCosts(repo: string, runs: number): BootCosts | undefined {
  const chain = bootRows(repo, 'chain', runs);
  const parts = bootRows(repo, 'parts', runs);
  return chain && [...chain, ...(parts ?? [])];
}

export interface ColdStart {
  entry: string;
  /** spawn → tools/list answered, `serve` (HTTP, a fresh client connecting once the URL is printed) */
  serve: Summary;
  /** spawn → tools/list answered, `stdio` (the client spawns the server) */
  stdio: Summary;
  samples: { serve: number[]; stdio: number[] };
  /** RSS of an idle `serve` process after boot, and after one 12-step task went through it */
  idleRssBytes: number;
  afterTaskRssBytes: number;
}

const SETTLE_MS = 3_000;

export async function measureColdStart(
  repo: string,
  entry: ServerEntry,
  gridUrl: string,
  siteUrl: string,
  runs: number,
  cleanup: Cleanup,
): Promise<ColdStart> {
  const env = { GRID_URL: gridUrl, HOST: '127.0.0.1', LOG_LEVEL: 'silent', SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' };
  const serve: number[] = [];
  const stdio: number[] = [];
  let idleRssBytes = Number.NaN;
  let afterTaskRssBytes = Number.NaN;
  // Alternate the two, so neither always runs on a warmer page cache.
  for (let run = 0; run < runs; run++) {
    const last = run === runs - 1;
    serve.push(
      await coldServe(repo, entry, env, cleanup, async (pid, url) => {
        if (!last) {
          return;
        }
        await delay(SETTLE_MS);
        idleRssBytes = rssBytes(pid);
        const client = await connectHttp(url, 'bench-cold', 'bench-cold');
        try {
          await runTwelveCalls(new McpToolCaller(client), siteUrl);
        } finally {
          await client.close();
        }
        await delay(SETTLE_MS);
        afterTaskRssBytes = rssBytes(pid);
      }),
    );
    stdio.push(await coldStdio(repo, entry, env, cleanup));
  }
  return {
    entry: entry.label,
    serve: summarize(serve),
    stdio: summarize(stdio),
    samples: { serve, stdio },
    idleRssBytes,
    afterTaskRssBytes,
  };
}

async function coldServe(
  repo: string,
  entry: ServerEntry,
  env: Record<string, string>,
  cleanup: Cleanup,
  afterListed: (pid: number, url: string) => Promise<void>,
): Promise<number> {
  const port = await freePort();
  const start = performance.now();
  const child = spawn(entry.command, [...entry.args, 'serve'], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  processTree(pid);
  const name = `cold serve ${pid}`;
  cleanup.add(name, () => stopProcesses([pid], 0));
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  try {
    const url = await withTimeout(
      'the server printing its MCP URL',
      30_000,
      new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const match = /MCP:\s+(\S+)\/mcp/.exec(line);
          if (match?.[1]) {
            resolve(match[1]);
          }
        });
        child.once('exit', (code) =>
          reject(new Error(`the server exited (${code}) before listening: ${stderr.join('')}`)),
        );
      }),
    );
    const client = await connectHttp(url, undefined, 'bench-cold');
    let elapsed: number;
    try {
      await client.listTools(undefined, { cacheMode: 'bypass' });
      elapsed = performance.now() - start;
    } finally {
      await client.close();
    }
    await afterListed(pid, url);
    return elapsed;
  } finally {
    child.kill('SIGTERM');
    await cleanup.release(name);
  }
}

async function coldStdio(
  repo: string,
  entry: ServerEntry,
  env: Record<string, string>,
  cleanup: Cleanup,
): Promise<number> {
  return coldStdioStart({ command: entry.command, args: [...entry.args, 'stdio'], cwd: repo, env }, cleanup);
}

export interface SpawnedServer {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * Spawn → tools/list answered, over the server's stdin and stdout as JSON-RPC lines. Not
 * with the SDK client: pinned to 2026-07-28 over stdio it probes `server/discover` in one
 * server process and lists the tools in a second one it spawns, which would count two cold
 * starts as one. Any stdio MCP server: ours, and the peer `bench/cold-start.ts` compares.
 */
export async function coldStdioStart(server: SpawnedServer, cleanup: Cleanup): Promise<number> {
  const start = performance.now();
  const child = spawn(server.command, server.args, {
    cwd: server.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...server.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  const name = `cold stdio ${pid}`;
  cleanup.add(name, () => stopProcesses([pid], 0));
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const send = (message: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  try {
    await withTimeout(
      'the stdio server listing its tools',
      30_000,
      new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const id = (JSON.parse(line) as { id?: unknown }).id;
          if (id === 1) {
            send({ method: 'notifications/initialized' });
            send({ id: 2, method: 'tools/list' });
          } else if (id === 2) {
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`the stdio server exited (${code}): ${stderr.join('')}`)));
        send({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-cold', version: '1' } },
        });
      }),
    );
    return performance.now() - start;
  } finally {
    await cleanup.release(name);
  }
}
