import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startServer, type RunningServer } from './server.js';
import { toolClient, type ToolClient } from './tools.js';

type Answer = Record<string, unknown>;

/** The workspace the tools suites drive their browser in. */
export const TOOLS_WORKSPACE = 'tools';

/** One tools suite's server and browser, with the reads its tests repeat. */
export interface ToolsBrowser extends ToolClient {
  site: string;
  /** the server, once beforeAll has started it */
  running: () => RunningServer;
  /** the server's FLOW_DATA_DIR, once beforeAll has made it */
  dataDir: () => string;
  script: <T = unknown>(source: string, args?: unknown[]) => Promise<T>;
  text: (css: string) => Promise<string | null | undefined>;
  value: (css: string) => Promise<string | null | undefined>;
  workspace: (client?: ToolClient) => Promise<Answer>;
  /** waits in the page (not in the test) until a script returns true */
  until: (condition: string) => Promise<void>;
}

/**
 * A server of its own with a browser open in TOOLS_WORKSPACE for the file that calls this, from
 * its beforeAll to its afterAll: each tools suite is a file vitest may run beside the others.
 */
export function useToolsBrowser(): ToolsBrowser {
  let running: RunningServer | undefined;
  let dataDir: string | undefined;
  const tools = toolClient(() => started().url, { workspace: TOOLS_WORKSPACE });
  const { call, ok } = tools;

  function started(): RunningServer {
    if (!running) {
      throw new Error('The tools server starts in beforeAll; call it from a hook or a test.');
    }
    return running;
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tools-test-'));
    running = await startServer({ FLOW_DATA_DIR: dataDir });
    await ok('open_session');
  });

  afterAll(async () => {
    await call('end_browser');
    await running?.close();
    if (dataDir !== undefined) {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  return {
    ...tools,
    site: inject('siteUrl'),
    running: started,
    dataDir: () => {
      if (dataDir === undefined) {
        throw new Error('The tools data directory is made in beforeAll; call it from a hook or a test.');
      }
      return dataDir;
    },
    script: async <T = unknown>(source: string, args: unknown[] = []) =>
      (await ok('execute_script', { script: source, args })).result as T,
    text: async (css) => (await ok('extract', { selector: { css } })).value as string | null | undefined,
    value: async (css) =>
      (await ok('extract', { selector: { css }, what: 'value' })).value as string | null | undefined,
    workspace: async (client = tools) => client.ok('current_workspace'),
    until: async (condition) => {
      await ok('assert', { script: `return ${condition}`, timeout: 10, message: `page never satisfied: ${condition}` });
    },
  };
}

/** A PNG's size, read from its header. */
export function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64');
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
