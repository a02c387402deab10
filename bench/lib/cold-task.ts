import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Client } from '@modelcontextprotocol/client';
import { freePort } from '../../src/embedded-grid/index.js';
import { withTimeout, type Cleanup } from './cleanup.js';
import type { ServerEntry } from './measures.js';
import { McpToolCaller, connectHttp, connectStdio } from './mcp.js';
import { processTree, stopProcesses } from './processes.js';
import { runTwelveCalls } from './tools-task.js';
import type { Configuration, StepObserver, TaskRun } from './task.js';

/**
 * The 12-step task in a freshly started server, as MCP clients run it (issue 51): a new server
 * process each round, so the first call pays whatever a fresh process does before its first
 * browser. stdio: the client spawns `selenium-flow stdio`; serve: `selenium-flow serve` is
 * started and a client connects once it prints its URL. The client's start (spawn, handshake,
 * tools/list: a client lists the tools before its model can call one) is timed apart, in
 * `startMs`, and is not in the task's total; closing the process is not timed.
 *
 * The client speaks 2025-11-25 (the SDK's default): what desktop clients speak, and one server
 * process per start (pinned to 2026-07-28 over stdio, the SDK probes in a second process it then
 * ends). Every setting is the default a user gets, but the Grid (GRID_URL, this bench's) and
 * BROWSER_SANDBOX=on, which the raw script's capabilities ask too (with GRID_URL the default is
 * off, which would ask Chromium for --no-sandbox).
 */
export type ColdKind = 'stdio' | 'serve';

export const coldId = (kind: ColdKind) => `mcp-${kind}-cold`;

export interface ColdEnv {
  gridUrl: string;
  siteUrl: string;
  /** FLOW_DATA_DIR of every server started fresh */
  dataDir: string;
}

export function coldServerEnv(env: ColdEnv): Record<string, string> {
  return {
    GRID_URL: env.gridUrl,
    BROWSER_SANDBOX: 'on',
    FLOW_DATA_DIR: env.dataDir,
    SE_OFFLINE: 'true',
    SE_AVOID_STATS: 'true',
  };
}

export function coldConfiguration(kind: ColdKind, entry: ServerEntry, env: ColdEnv, cleanup: Cleanup): Configuration {
  return {
    id: coldId(kind),
    label: `12 MCP calls, ${kind === 'stdio' ? 'stdio' : 'Streamable HTTP (serve)'}, a new server process per round`,
    run: async (beforeStep?: StepObserver): Promise<TaskRun> => {
      const started = performance.now();
      const server = await startFresh(kind, entry, coldServerEnv(env), cleanup);
      try {
        await server.client.listTools();
        const startMs = performance.now() - started;
        return { ...(await runTwelveCalls(new McpToolCaller(server.client), env.siteUrl, beforeStep)), startMs };
      } finally {
        await server.close();
      }
    },
  };
}

export interface Started {
  client: Client;
  close(): Promise<void>;
}

export interface StartOptions {
  /** node options before the entry (a preload: bench/lib/grid-timing.mjs) */
  nodeArgs?: string[];
  onStderr?: (line: string) => void;
}

/** A new server process and an MCP client of it, connected (2025-11-25); tools not listed yet. */
export async function startFresh(
  kind: ColdKind,
  entry: ServerEntry,
  env: Record<string, string>,
  cleanup: Cleanup,
  options: StartOptions = {},
): Promise<Started> {
  const args = [...(options.nodeArgs ?? []), ...entry.args, kind];
  if (kind === 'stdio') {
    const server = await connectStdio(entry.command, args, process.cwd(), env, 'legacy', options.onStderr);
    return { client: server.client, close: () => server.close() };
  }
  return startServe(entry.command, args, env, cleanup, options.onStderr);
}

async function startServe(
  command: string,
  args: string[],
  env: Record<string, string>,
  cleanup: Cleanup,
  onStderr: ((line: string) => void) | undefined,
): Promise<Started> {
  const port = await freePort();
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  const name = `cold serve ${pid}`;
  cleanup.add(name, () => stopProcesses(processTree(pid), 0));
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
    onStderr?.(line);
  });
  let client: Client | undefined;
  const close = async () => {
    await client?.close().catch(() => undefined);
    child.kill('SIGTERM');
    await cleanup.release(name);
  };
  try {
    const url = await withTimeout(
      'the server printing its MCP URL',
      30_000,
      new Promise<string>((resolve, reject) => {
        // Read to the end: the server's log lines go to stdout too, and a full pipe would stall it.
        createInterface({ input: child.stdout }).on('line', (line) => {
          const match = /MCP:\s+(\S+)\/mcp/.exec(line);
          if (match?.[1]) {
            resolve(match[1]);
          }
        });
        child.once('exit', (code) =>
          reject(new Error(`serve exited (${code}) before listening: ${stderr.slice(-20).join('\n')}`)),
        );
      }),
    );
    client = await connectHttp(url, 'bench-serve-cold', 'bench-serve-cold', 'legacy');
    return { client, close };
  } catch (err) {
    await close();
    throw err;
  }
}
