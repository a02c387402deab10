import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../src/poll.js';

/**
 * Issue 17's cold start: `stdio` answers tools/list without loading what only a browser, a
 * log line, a file or the HTTP app needs (src/lazy.ts, src/browser/webdriver.ts, src/parts.ts).
 * The packages a process loaded, as recorded by test/fixtures/record-loads.mjs.
 */
const DEFERRED = [
  'selenium-webdriver',
  'fastify',
  'ioredis',
  'yaml',
  'pino',
  'prom-client',
  'ws',
  'ajv',
  're2js',
  'pngjs',
  'fflate',
  'content-disposition',
];

/** How long after warm-up the WebDriver class must still be unloaded: a negative check, so a fixed wait. */
const STILL_UNLOADED_FOR_MS = 300;

/** The record up to its n-th `--- stdout` mark (test/fixtures/record-loads.mjs). */
function untilMark(record: string, n: number): string[] {
  const lines = record.split('\n');
  let seen = 0;
  const end = lines.findIndex((line) => line === '--- stdout' && ++seen === n);
  if (end < 0) {
    throw new Error(`the record has ${seen} stdout marks, not ${n}`);
  }
  return lines.slice(0, end);
}

function packagesOf(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file);
    if (match?.[1]) {
      names.add(match[1]);
    }
  }
  return names;
}

/** `selenium-flow <command>` from src/, writing every module it loads to `record` as it exits. */
function recordingLoads(command: 'stdio' | 'serve', dir: string, record: string, env: Record<string, string> = {}) {
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './test/fixtures/record-loads.mjs', 'src/cli.ts', command],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        GRID_URL: 'http://127.0.0.1:9',
        FLOW_DATA_DIR: join(dir, 'data'),
        RECORD_LOADS: record,
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

describe('stdio cold start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'selenium-flow-cold-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists its tools without loading selenium-webdriver, fastify, yaml, pino or the rest', async () => {
    const record = join(dir, 'loaded.txt');
    const child = recordingLoads('stdio', dir, record);
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const answers = createInterface({ input: child.stdout });
    const tools = await new Promise<unknown[]>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`stdio exited (${code}) before it listed its tools`)));
      answers.on('line', (line) => {
        const answer = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (answer.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (answer.id === 2) {
          resolve(answer.result?.tools ?? []);
        }
      });
      send({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cold', version: '1' } },
      });
    });
    expect(tools.length).toBeGreaterThan(20);
    // Its answers are the recorder's marks: the second is the tools' list.
    const listed = packagesOf(untilMark(await readFile(record, 'utf8'), 2));
    // The record works: what listing tools does need is in it.
    expect(listed).toContain('@modelcontextprotocol/server');
    expect(listed).toContain('zod');
    expect(DEFERRED.filter((name) => listed.has(name))).toEqual([]);

    // Then, its start answered, it gets ready for a first browser (ops/warm-up.ts): each ping's
    // answer marks what it has loaded by then. The logger (a call's line) is the last it loads.
    let pings = 3;
    const lastMark = async () => {
      const id = pings++;
      const answered = new Promise<void>((resolve) => {
        const onLine = (line: string) => {
          if ((JSON.parse(line) as { id?: number }).id === id) {
            answers.off('line', onLine);
            resolve();
          }
        };
        answers.on('line', onLine);
      });
      send({ id, method: 'ping' });
      // The recorder writes its mark before the answer, so the mark is in the file once it came.
      await answered;
      return (await readFile(record, 'utf8')).split('--- stdout').at(-2) ?? '';
    };
    const ready = await poll(async () => ((await lastMark()).includes('/pino/') ? true : undefined), 20_000, 50);
    expect(ready, 'the logger loaded after the tools were listed').toBe(true);
    // Warm-up must not go on to load the WebDriver class later: only a first browser may.
    await delay(STILL_UNLOADED_FOR_MS);
    const loadedThen = await lastMark();
    expect(loadedThen).toContain('selenium-webdriver/http/index.js');
    // The WebDriver class (most of selenium-webdriver) is not: it loads while the Grid starts the first browser.
    expect(loadedThen).not.toContain('selenium-webdriver/lib/webdriver.js');
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe('serve cold start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'selenium-flow-cold-serve-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // serve needs fastify (and what fastify loads: pino, ajv) and its routes' own (content-disposition);
  // a browser, Redis, a viewer or a flow's parameters load their packages when one first comes.
  it('listens without loading selenium-webdriver, ws, Redis or the packages of later work', async () => {
    const record = join(dir, 'loaded.txt');
    const child = recordingLoads('serve', dir, record, { HOST: '127.0.0.1', PORT: '0' });
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(`${code} ${signal}`)));
    const base = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it printed its MCP URL`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const url = /MCP:\s+(\S+)\/mcp/.exec(line)?.[1];
        if (url) {
          resolve(url);
        }
      });
    });
    // Answering proves it is past its start, its exit handler in place.
    expect((await fetch(`${base}/health`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe('0 null');

    // What it had loaded when it printed its banner (its first write to stdout): listening.
    const loaded = packagesOf(untilMark(await readFile(record, 'utf8'), 1));
    expect(loaded).toContain('fastify');
    const laterWork = DEFERRED.filter((name) => !['fastify', 'pino', 'ajv', 'content-disposition'].includes(name));
    expect(laterWork.filter((name) => loaded.has(name))).toEqual([]);
  });
});
