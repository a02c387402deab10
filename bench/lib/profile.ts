import type { Client } from '@modelcontextprotocol/client';
import type { Command } from 'selenium-webdriver/lib/command.js';
import { Executor } from 'selenium-webdriver/http/index.js';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import type { Capability } from '../../src/capabilities/capability.js';
import { loadConfig } from '../../src/config.js';
import { createServer, type HttpServer } from '../../src/server.js';
import type { Cleanup } from './cleanup.js';
import { McpToolCaller, connectHttp } from './mcp.js';
import { rawConfiguration } from './raw.js';
import { median } from './stats.js';
import { STEP_COUNT, type Configuration } from './task.js';
import { runTwelveCalls } from './tools-task.js';

/**
 * Where the time of an MCP call goes, server side. A second in-process server (the timed one
 * stays untouched) is instrumented from the outside, without changing src/:
 * - every WebDriver command, through selenium-webdriver's Executor (the raw script's too);
 * - the request, from Fastify's onRequest to the response's last byte;
 * - the tool handler (wrapped on the capability table, restored afterwards);
 * - the record store (get/put/delete on the instance).
 * Commands before the handler are the binding (and, in step 1, the on-demand browser);
 * commands after it are the page-state read every acting tool answers with.
 */

type Who = 'raw' | 'mcp';
type Phase = 'before' | 'handler' | 'after';

interface Interval {
  start: number;
  end: number;
}

interface StepSample {
  clientMs: number;
  serverMs: number;
  handlerMs: number;
  storeMs: number;
  storeOps: number;
  webdriver: Record<Phase, Interval[]>;
  commands: { name: string; phase: Phase; start: number; end: number }[];
}

const emptySample = (): StepSample => ({
  clientMs: 0,
  serverMs: 0,
  handlerMs: 0,
  storeMs: 0,
  storeOps: 0,
  webdriver: { before: [], handler: [], after: [] },
  commands: [],
});

class Recorder {
  who: Who = 'mcp';
  step = -1;
  phase: Phase = 'before';
  recording = false;
  readonly rounds: Record<Who, StepSample[][]> = { raw: [], mcp: [] };

  newRound(who: Who): void {
    this.who = who;
    this.rounds[who].push(Array.from({ length: STEP_COUNT }, emptySample));
  }

  sample(): StepSample | undefined {
    if (!this.recording || this.step < 0) {
      return undefined;
    }
    return this.rounds[this.who].at(-1)?.[this.step];
  }
}

/** Union length of possibly overlapping intervals: parallel commands count once. */
function busyMs(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let end = -Infinity;
  for (const i of sorted) {
    if (i.end <= end) {
      continue;
    }
    total += i.end - Math.max(i.start, end);
    end = i.end;
  }
  return total;
}

function instrumentWebDriver(rec: Recorder): () => void {
  const prototype = Executor.prototype as unknown as { execute: (this: unknown, command: Command) => Promise<unknown> };
  const original = prototype.execute;
  prototype.execute = async function (this: unknown, command: Command): Promise<unknown> {
    const sample = rec.sample();
    const phase = rec.phase;
    const start = performance.now();
    try {
      return await original.call(this, command);
    } finally {
      const end = performance.now();
      if (sample) {
        sample.webdriver[phase].push({ start, end });
        sample.commands.push({ name: command.getName(), phase, start, end });
      }
    }
  };
  return () => {
    prototype.execute = original;
  };
}

function instrumentHandlers(rec: Recorder): () => void {
  const originals = new Map<Capability, Capability>();
  for (const capability of CAPABILITIES) {
    originals.set(capability, { ...capability });
    // Each branch keeps the context its handler is typed for.
    if (capability.attach === 'none') {
      capability.handler = timedHandler(rec, capability.handler);
    } else {
      capability.handler = timedHandler(rec, capability.handler);
    }
  }
  return () => {
    for (const [capability, original] of originals) {
      Object.assign(capability, original);
    }
  };
}

function timedHandler<C>(
  rec: Recorder,
  handler: (args: Record<string, unknown>, ctx: C) => Promise<Record<string, unknown>>,
): typeof handler {
  return async (args, ctx) => {
    const sample = rec.sample();
    rec.phase = 'handler';
    const start = performance.now();
    try {
      return await handler(args, ctx);
    } finally {
      if (sample) {
        sample.handlerMs += performance.now() - start;
      }
      rec.phase = 'after';
    }
  };
}

function instrumentServer(rec: Recorder, server: HttpServer): void {
  server.app.addHook('onRequest', async (_request, reply) => {
    const sample = rec.sample();
    rec.phase = 'before';
    const start = performance.now();
    reply.raw.once('finish', () => {
      if (sample) {
        sample.serverMs += performance.now() - start;
      }
    });
  });
  const store = server.store as unknown as Record<'get' | 'put' | 'delete', (...args: unknown[]) => Promise<unknown>>;
  for (const method of ['get', 'put', 'delete'] as const) {
    const original = store[method].bind(server.store);
    store[method] = async (...args: unknown[]) => {
      const sample = rec.sample();
      const start = performance.now();
      try {
        return await original(...args);
      } finally {
        if (sample) {
          sample.storeMs += performance.now() - start;
          sample.storeOps += 1;
        }
      }
    };
  }
}

export interface StepProfile {
  clientMs: number;
  serverMs: number;
  /** client round trip minus server time: the MCP client, JSON-RPC, HTTP on loopback */
  hopMs: number;
  /** WebDriver before the handler (binding; in step 1 also the browser opened on demand) */
  bindMs: number;
  /** the tool handler's own time (its WebDriver commands, and the Grid DELETE of end_browser) */
  toolMs: number;
  /** WebDriver after the handler: the page-state read (url + title) */
  pageStateMs: number;
  storeMs: number;
  storeOps: number;
  /** server time outside binding, handler, page-state read and store: MCP SDK, validation, Fastify, JSON */
  otherServerMs: number;
  commands: string;
  rawMs: number;
  rawCommands: string;
}

/** Work on the MCP path that the raw script does not do, median per task: what a fix could save. */
export interface Avoidable {
  what: string;
  ms: number;
}

export interface ProfileReport {
  avoidable: Avoidable[];
  rounds: number;
  /** median round trip of a tools/call refused at validation (no browser): the protocol's floor per call */
  floorMs: { http: number; stdio: number };
  steps: StepProfile[];
  /** per command name, over every MCP step: median ms of one command */
  commandMedians: Record<string, { count: number; medianMs: number }>;
}

function commandList(sample: StepSample | undefined, phases: readonly Phase[]): string {
  const names = (sample?.commands ?? []).filter((c) => phases.includes(c.phase)).map((c) => c.name);
  const counted = new Map<string, number>();
  for (const n of names) {
    counted.set(n, (counted.get(n) ?? 0) + 1);
  }
  return [...counted].map(([n, c]) => (c > 1 ? `${n}×${c}` : n)).join(', ');
}

const FLOOR_CALLS = 30;

/**
 * The protocol's floor per tools/call: a call the server refuses at argument validation
 * (no browser, no Grid, a one-line answer). 2026-07-28 has no ping.
 */
async function callFloorMedian(client: Client): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FLOOR_CALLS; i++) {
    const start = performance.now();
    const result = await client.callTool({ name: 'navigate', arguments: {} });
    times.push(performance.now() - start);
    if (result.isError !== true) {
      throw new Error('navigate without arguments was expected to be refused');
    }
  }
  return median(times.slice(5));
}

export async function profileMcpHttp(
  gridUrl: string,
  siteUrl: string,
  rounds: number,
  stdioClient: Client,
  cleanup: Cleanup,
): Promise<ProfileReport> {
  const rec = new Recorder();
  const server = createServer(loadConfig({}, { PORT: '0', LOG_LEVEL: 'silent' }), gridUrl);
  instrumentServer(rec, server);
  const restoreWebDriver = instrumentWebDriver(rec);
  const restoreHandlers = instrumentHandlers(rec);
  cleanup.add('profiling hooks', async () => {
    restoreHandlers();
    restoreWebDriver();
  });
  const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.add('profiled HTTP server', () => server.close());
  const client = await connectHttp(url, 'bench-profile', 'bench-profile');
  cleanup.add('profiled MCP client', () => client.close());
  const caller = new McpToolCaller(client);
  const raw: Configuration = rawConfiguration(gridUrl, siteUrl, 'script');

  // Round 0 warms both paths up and is not recorded.
  for (let round = 0; round <= rounds; round++) {
    rec.recording = round > 0;
    if (rec.recording) {
      rec.newRound('raw');
    }
    rec.who = 'raw';
    await runRawRecorded(raw, rec);
    if (rec.recording) {
      rec.newRound('mcp');
    }
    rec.who = 'mcp';
    const run = await runTwelveCalls(caller, siteUrl, (index) => {
      rec.step = index;
    });
    rec.step = -1;
    const samples = rec.rounds.mcp.at(-1);
    if (rec.recording && samples) {
      run.stepMs.forEach((ms, i) => {
        const s = samples[i];
        if (s && ms !== undefined) {
          s.clientMs = ms;
        }
      });
    }
  }
  const floorMs = { http: await callFloorMedian(client), stdio: await callFloorMedian(stdioClient) };
  await cleanup.release('profiled MCP client');
  await cleanup.release('profiled HTTP server');
  await cleanup.release('profiling hooks');
  return report(rec, rounds, floorMs);
}

/** The raw script, its commands attributed to the step that sent them. */
async function runRawRecorded(raw: Configuration, rec: Recorder): Promise<void> {
  rec.phase = 'handler';
  try {
    const run = await raw.run((index) => {
      rec.step = index;
    });
    const samples = rec.rounds.raw.at(-1);
    if (rec.recording && samples) {
      run.stepMs.forEach((ms, i) => {
        const s = samples[i];
        if (s && ms !== undefined) {
          s.clientMs = ms;
        }
      });
    }
  } finally {
    rec.step = -1;
  }
}

const WRITE_STEPS = [1, 2];

function avoidable(rounds: readonly StepSample[][]): Avoidable[] {
  const per = (f: (round: readonly StepSample[]) => number) => median(rounds.map(f));
  const commands = (
    round: readonly StepSample[],
    steps: readonly number[],
    keep: (c: StepSample['commands'][number]) => boolean,
  ) => busyMs(steps.flatMap((i) => (round[i]?.commands ?? []).filter(keep)));
  const all = Array.from({ length: STEP_COUNT }, (_, i) => i);
  return [
    {
      what: 'page-state read (url + title) after every acting tool, all steps',
      ms: per((r) => commands(r, all, (c) => c.phase === 'after')),
    },
    {
      what: '… of which after `write` (typing does not navigate)',
      ms: per((r) => commands(r, WRITE_STEPS, (c) => c.phase === 'after')),
    },
    {
      what: 'step 1: commands besides newSession before `navigate` runs (e.g. a read of the blank page)',
      ms: per((r) => commands(r, [0], (c) => c.phase === 'before' && c.name !== 'newSession')),
    },
    {
      what: '`write`: clearElement before typing into an empty field',
      ms: per((r) => commands(r, WRITE_STEPS, (c) => c.name === 'clearElement')),
    },
    {
      what: '`write`: its scripts (the lookup that also says whether the field is empty; the read-back of the value and the page)',
      ms: per((r) => commands(r, WRITE_STEPS, (c) => c.phase === 'handler' && c.name === 'executeScript')),
    },
    {
      what: 'protocol hop (client round trip − server time), all steps',
      ms: per((r) => r.reduce((a, s) => a + s.clientMs - s.serverMs, 0)),
    },
    {
      what: 'server time outside WebDriver and the store (MCP SDK, validation, Fastify), all steps',
      ms: per((r) =>
        r.reduce(
          (a, s) => a + s.serverMs - busyMs([...s.webdriver.before, ...s.webdriver.after]) - s.handlerMs - s.storeMs,
          0,
        ),
      ),
    },
    { what: 'record store (get/put), all steps', ms: per((r) => r.reduce((a, s) => a + s.storeMs, 0)) },
  ];
}

function report(rec: Recorder, rounds: number, floorMs: ProfileReport['floorMs']): ProfileReport {
  const steps: StepProfile[] = [];
  const perCommand = new Map<string, number[]>();
  for (let i = 0; i < STEP_COUNT; i++) {
    const mcp = rec.rounds.mcp.map((r) => r[i] ?? emptySample());
    const raw = rec.rounds.raw.map((r) => r[i] ?? emptySample());
    const med = (f: (s: StepSample) => number) => median(mcp.map(f));
    for (const s of mcp) {
      for (const c of s.commands) {
        perCommand.set(c.name, [...(perCommand.get(c.name) ?? []), c.end - c.start]);
      }
    }
    steps.push({
      clientMs: med((s) => s.clientMs),
      serverMs: med((s) => s.serverMs),
      hopMs: med((s) => s.clientMs - s.serverMs),
      bindMs: med((s) => busyMs(s.webdriver.before)),
      toolMs: med((s) => s.handlerMs),
      pageStateMs: med((s) => busyMs(s.webdriver.after)),
      storeMs: med((s) => s.storeMs),
      storeOps: med((s) => s.storeOps),
      otherServerMs: med(
        (s) => s.serverMs - busyMs(s.webdriver.before) - s.handlerMs - busyMs(s.webdriver.after) - s.storeMs,
      ),
      commands: [commandList(mcp[0], ['before']), commandList(mcp[0], ['handler']), commandList(mcp[0], ['after'])]
        .map((l) => l || '–')
        .join(' → '),
      rawMs: median(raw.map((s) => s.clientMs)),
      rawCommands: commandList(raw[0], ['handler', 'before', 'after']),
    });
  }
  const commandMedians: ProfileReport['commandMedians'] = {};
  for (const [name, values] of perCommand) {
    commandMedians[name] = { count: values.length / Math.max(1, rounds), medianMs: median(values) };
  }
  return { rounds, floorMs, steps, commandMedians, avoidable: avoidable(rec.rounds.mcp) };
}
