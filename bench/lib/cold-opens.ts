import { fileURLToPath } from 'node:url';
import { Builder } from 'selenium-webdriver';
import type { Cleanup } from './cleanup.js';
import { coldServerEnv, startFresh, type ColdEnv, type ColdKind } from './cold-task.js';
import type { ServerEntry } from './measures.js';
import { McpToolCaller } from './mcp.js';
import { markdownTable, median, ms, summarize, triple } from './stats.js';
import { pages } from './task.js';

/**
 * A fresh process's first browser, alone (issue 51: "open_session in a fresh process within
 * 30 ms of a raw session creation"): round by round, the raw script's `build()` + `get()` in
 * this process, and a new server per kind (stdio, serve) whose client, once its tools are
 * listed, calls `open_session` then `navigate {url}`. Session creation on a loaded machine
 * varies by seconds from one browser to the next, so our own work is also read directly: each
 * call minus the Grid's own time on the request it is there for (newSession, get), which the
 * server reports through a preload (bench/lib/grid-timing.mjs) — everything else in the call
 * (the MCP hop, argument checks, the store, the page read of our answer) is ours.
 */
export interface FreshOpen {
  /** spawn → tools/list answered */
  startMs: number;
  openMs: number;
  /** the Grid's newSession, as the server timed it */
  newSessionMs: number;
  navigateMs: number;
  /** the Grid's get */
  getMs: number;
}

export interface ColdOpens {
  raw: number[];
  fresh: Record<ColdKind, FreshOpen[]>;
}

const PRELOAD = fileURLToPath(new URL('./grid-timing.mjs', import.meta.url));
const KINDS: ColdKind[] = ['stdio', 'serve'];

export async function measureColdOpens(
  entry: ServerEntry,
  env: ColdEnv,
  capabilities: Record<string, unknown>,
  rounds: number,
  cleanup: Cleanup,
): Promise<ColdOpens> {
  const url = pages(env.siteUrl).login;
  const result: ColdOpens = { raw: [], fresh: { stdio: [], serve: [] } };
  const runs = ['raw', ...KINDS] as const;
  // round 0 warms up and is dropped; the order rotates, so none always follows a close
  for (let round = 0; round <= rounds; round++) {
    for (let i = 0; i < runs.length; i++) {
      const which = runs[(i + round) % runs.length] ?? 'raw';
      if (which === 'raw') {
        const started = performance.now();
        const driver = await new Builder().usingServer(env.gridUrl).withCapabilities(capabilities).build();
        await driver.get(url);
        const elapsed = performance.now() - started;
        await driver.quit();
        if (round > 0) {
          result.raw.push(elapsed);
        }
      } else {
        const open = await freshOpen(which, entry, env, url, cleanup);
        if (round > 0) {
          result.fresh[which].push(open);
        }
      }
    }
  }
  return result;
}

async function freshOpen(
  kind: ColdKind,
  entry: ServerEntry,
  env: ColdEnv,
  url: string,
  cleanup: Cleanup,
): Promise<FreshOpen> {
  const requests: { method: string; path: string; ms: number }[] = [];
  const started = performance.now();
  const server = await startFresh(kind, entry, coldServerEnv(env), cleanup, {
    nodeArgs: ['--import', PRELOAD],
    onStderr: (line) => {
      const match = /^grid-request (\S+) (\S+) (\S+)$/.exec(line);
      if (match) {
        requests.push({ method: match[1] ?? '', path: match[2] ?? '', ms: Number(match[3]) });
      }
    },
  });
  try {
    await server.client.listTools();
    const startMs = performance.now() - started;
    const tools = new McpToolCaller(server.client);
    const timed = async (call: () => Promise<unknown>, path: RegExp) => {
      requests.length = 0;
      const t = performance.now();
      await call();
      const elapsed = performance.now() - t;
      // The server writes its request's line before its answer: give the pipe a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { elapsed, grid: requests.filter((r) => r.method === 'POST' && path.test(r.path)) };
    };
    const open = await timed(() => tools.call('open_session', {}), /^\/session$/);
    const navigate = await timed(() => tools.call('navigate', { url }), /^\/session\/<id>\/url$/);
    await tools.call('end_browser', {});
    const only = (found: { ms: number }[], what: string) => {
      if (found.length !== 1) {
        throw new Error(`the fresh ${kind} server's ${what} was seen ${found.length} times, expected once`);
      }
      return found[0]?.ms ?? Number.NaN;
    };
    return {
      startMs,
      openMs: open.elapsed,
      newSessionMs: only(open.grid, 'newSession'),
      navigateMs: navigate.elapsed,
      getMs: only(navigate.grid, 'get'),
    };
  } finally {
    await server.close();
  }
}

/** Our own work in open_session, per kind: the call minus the Grid's newSession, median over rounds. */
export function coldOpenOwnWork(opens: ColdOpens, kind: ColdKind): number {
  return median(opens.fresh[kind].map((o) => o.openMs - o.newSessionMs));
}

export function coldOpensTable(opens: ColdOpens, rounds: number): string {
  const rows = KINDS.flatMap((kind) => {
    const runs = opens.fresh[kind];
    const label = kind === 'stdio' ? 'stdio' : 'serve (HTTP)';
    const paired = median(runs.map((r, i) => r.openMs + r.navigateMs - (opens.raw[i] ?? Number.NaN)));
    return [
      [
        `${label}: \`open_session\``,
        triple(summarize(runs.map((r) => r.openMs))),
        triple(summarize(runs.map((r) => r.newSessionMs))),
        triple(summarize(runs.map((r) => r.openMs - r.newSessionMs))),
        '',
      ],
      [
        `${label}: then \`navigate {url}\``,
        triple(summarize(runs.map((r) => r.navigateMs))),
        triple(summarize(runs.map((r) => r.getMs))),
        triple(summarize(runs.map((r) => r.navigateMs - r.getMs))),
        `${ms(paired)} ms`,
      ],
    ];
  });
  return [
    `### A fresh process's first browser, ${rounds} rounds (rotating, after a warm-up round): a new server each, its tools listed first`,
    '',
    markdownTable(
      [
        'call',
        'ms: min / **median** / max',
        "the Grid's own (newSession, get)",
        'our own work',
        'both calls minus raw, paired median',
      ],
      [
        ['raw selenium-webdriver `build()` + `get()`, this process', triple(summarize(opens.raw)), '', '', '–'],
        ...rows,
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Our own work: the call minus the Grid's time on the request it is there for, as the server timed it (a preload, bench/lib/grid-timing.mjs, in these servers only); the MCP hop, argument checks, the store and the page our answer names are in it. Spawn → tools listed: stdio ${triple(summarize(opens.fresh.stdio.map((r) => r.startMs)))} ms, serve ${triple(summarize(opens.fresh.serve.map((r) => r.startMs)))} ms.`,
  ].join('\n');
}
