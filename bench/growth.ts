/**
 * `npm run bench:growth`: how cost grows with the work (performance.md, "the growth table").
 * For each dimension the cost at 1×, 10× and 100× its size, and the slope between the ends
 * (the exponent k of cost ∝ size^k: ~0 flat, ~1 linear, > 1.2 worse than linear, a finding).
 * One embedded Grid, the fixture site and one in-process server; each measure is the median of
 * `--reps` repetitions. Prints Markdown; `--json <file>` writes every number; `--only <dimension>`
 * (page, flow, library, files, workspaces; repeatable) measures those alone; `--redis` keeps the
 * server's store in a Redis of its own instead of memory.
 */
import './lib/offline.js';
import { writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBench, type Cleanup } from './lib/cleanup.js';
import { startGrowthEnv, type GrowthEnv } from './lib/growth-env.js';
import { DirectToolCaller, McpToolCaller, connectHttp } from './lib/mcp.js';
import { markdownTable, median } from './lib/stats.js';
import { MAX_FLOW_LIST_BYTES, MAX_LISTED_FILES } from '../src/limits.js';
import { pages } from './lib/task.js';
import { heapAfterGc } from './lib/memory.js';

const { values: options } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    json: { type: 'string' },
    'timeout-minutes': { type: 'string', default: '20' },
    only: { type: 'string', multiple: true },
    redis: { type: 'boolean', default: false },
  },
});
const REPS = Math.max(1, Math.min(20, Number(options.reps) || 3));
const DIMENSIONS = ['page', 'flow', 'library', 'files', 'workspaces'] as const;
type Dimension = (typeof DIMENSIONS)[number];
const unknownDimension = options.only?.find((name) => !DIMENSIONS.some((d) => d === name));
if (unknownDimension !== undefined) {
  throw new Error(`--only ${unknownDimension}: the dimensions are ${DIMENSIONS.join(', ')}`);
}
const measured = (dimension: Dimension): boolean => options.only === undefined || options.only.includes(dimension);

export interface GrowthRow {
  dimension: string;
  measure: string;
  sizes: string[];
  /** the sizes as numbers, for the slope (default 10 / 100 / 1,000) */
  sizesN?: number[];
  values: (number | undefined)[];
  unit: 'ms' | 'B' | 'MB';
  note?: string;
}

const out = (text = '') => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`bench growth: ${text}\n`);

async function timed(work: () => Promise<unknown>, reps = REPS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}

/** The exponent k of cost ∝ size^k between the smallest and the largest size measured. */
export function slope(sizes: number[], values: (number | undefined)[]): { k: number; name: string } {
  const pairs = sizes
    .map((s, i) => [s, values[i]] as const)
    .filter((p): p is readonly [number, number] => p[1] !== undefined && p[1] > 0);
  const first = pairs[0];
  const last = pairs[pairs.length - 1];
  if (!first || !last || first === last) {
    return { k: Number.NaN, name: '–' };
  }
  const k = Math.log(last[1] / first[1]) / Math.log(last[0] / first[0]);
  const name = k < 0.2 ? 'flat' : k < 0.8 ? 'sublinear' : k <= 1.2 ? 'linear' : 'WORSE than linear';
  return { k, name };
}

// ---------------------------------------------------------------- page size

async function pageSize(env: GrowthEnv): Promise<GrowthRow[]> {
  const caller = { key: 'named:growth-page', workspace: 'growth-page' };
  const tools = new DirectToolCaller(env.server.deps, caller);
  const url = pages(env.siteUrl);
  const nodes: number[] = [];
  const ms: number[] = [];
  const bytes: number[] = [];
  for (const factor of [1, 10, 100]) {
    await tools.call('navigate', { url: url.heavy });
    const { driver } = await env.server.deps.workspaces.attach(caller, undefined, false);
    // The heavy page's sections, copied (factor - 1) times: the same kinds of nodes, factor times as many.
    const count = await driver.executeScript<number>(
      `const main = document.querySelector('main'); const sections = [...main.querySelectorAll('section')];
       for (let i = 1; i < arguments[0]; i++) for (const s of sections) { const c = s.cloneNode(true); c.id = s.id + '-' + i; main.appendChild(c); }
       return document.getElementsByTagName('*').length;`,
      factor,
    );
    let answerBytes = 0;
    ms.push(
      await timed(async () => {
        answerBytes = (await tools.call('outline', {})).textBytes;
      }),
    );
    nodes.push(count);
    bytes.push(answerBytes);
    progress(`outline of ${count} nodes: ${ms.at(-1)?.toFixed(0)} ms, ${answerBytes} B`);
  }
  await tools.call('end_browser', {});
  const sizes = nodes.map((n) => n.toLocaleString('en-US'));
  const dimension = 'page size (DOM nodes)';
  return [
    { dimension, measure: '`outline` ms', sizes, sizesN: nodes, values: ms, unit: 'ms' },
    {
      dimension,
      measure: '`outline` answer bytes',
      sizes,
      sizesN: nodes,
      values: bytes,
      unit: 'B',
      note: 'capped by max_chars (default 10,000)',
    },
  ];
}

// ---------------------------------------------------------------- flow length

async function flowLength(env: GrowthEnv): Promise<GrowthRow[]> {
  const caller = { key: 'named:growth-flow', workspace: 'growth-flow' };
  const tools = new DirectToolCaller(env.server.deps, caller);
  const url = pages(env.siteUrl);
  await tools.call('navigate', { url: url.heavy });
  const saveMs: (number | undefined)[] = [];
  const runMs: (number | undefined)[] = [];
  let refused = '';
  // A flow holds at most 200 steps (flows/document.ts): 1,000 is asked to show the refusal, 200 is timed instead.
  for (const length of [10, 100, 1000, 200]) {
    const document = {
      steps: Array.from({ length }, (_, i) => ({
        tool: 'extract',
        args: { selector: { css: '#heavy-title' } },
        ...(i === length - 1 ? { id: 'last', return: true } : {}),
      })),
    };
    const name = `growth-${length}`;
    try {
      saveMs.push(await timed(() => tools.call('save_flow', { name, document })));
    } catch (err) {
      refused = err instanceof Error ? err.message.slice(0, 160) : String(err);
      saveMs.push(undefined);
      runMs.push(undefined);
      progress(`flow of ${length} steps refused: ${refused}`);
      continue;
    }
    runMs.push(
      await timed(async () => {
        const report = (await tools.call('run_flow', { name })).structured;
        if (report.status !== 'ok') {
          throw new Error(`run_flow of ${length} steps answered ${JSON.stringify(report).slice(0, 300)}`);
        }
      }, 1),
    );
    progress(`flow of ${length} steps: save ${saveMs.at(-1)?.toFixed(0)} ms, run ${runMs.at(-1)?.toFixed(0)} ms`);
  }
  await tools.call('end_browser', {});
  // 1,000 is refused (its slot holds no measure), so the third column is the cap, 200.
  const kept = (values: (number | undefined)[]) => [values[0], values[1], values[3]];
  saveMs.splice(0, saveMs.length, ...kept(saveMs));
  runMs.splice(0, runMs.length, ...kept(runMs));
  const sizes = ['10', '100', '200 (the cap)'];
  const sizesN = [10, 100, 200];
  const note = refused
    ? `a flow of 1,000 steps is refused by the documented cap of 200 steps ("${refused}"); the third column is 200`
    : undefined;
  return [
    { dimension: 'flow length (steps)', measure: '`save_flow` ms', sizes, sizesN, values: saveMs, unit: 'ms', note },
    {
      dimension: 'flow length (steps)',
      measure: '`run_flow` ms (each step an `extract`)',
      sizes,
      sizesN,
      values: runMs,
      unit: 'ms',
      note,
    },
  ];
}

// ---------------------------------------------------------------- library size

async function librarySize(env: GrowthEnv, cleanup: Cleanup): Promise<GrowthRow[]> {
  const workspace = 'growth-library';
  const tools = new DirectToolCaller(env.server.deps, { key: `named:${workspace}`, workspace });
  const client = await connectHttp(env.url, workspace, 'bench-growth');
  cleanup.add('growth MCP client', () => client.close());
  const mcp = new McpToolCaller(client);
  const document = (i: number) => ({
    description: `Growth flow ${i}`,
    steps: [{ tool: 'extract', args: { selector: { css: `#item-${i}` } }, return: true }],
  });
  let saved = 0;
  const rows = {
    listMs: [] as number[],
    listBytes: [] as number[],
    toolsMs: [] as number[],
    toolsBytes: [] as number[],
    saveMs: [] as number[],
    relistMs: [] as number[],
  };
  let refused = '';
  // A library holds at most 1,000 flows (limits.ts): were a save refused before, the third
  // column would be the library at its cap.
  for (const size of [10, 100, 1000]) {
    while (saved < size && !refused) {
      try {
        await tools.call('save_flow', { name: `lib-${saved}`, document: document(saved) });
        saved += 1;
      } catch (err) {
        refused = err instanceof Error ? err.message.slice(0, 160) : String(err);
        progress(`flow ${saved + 1} of the library refused: ${refused}`);
      }
    }
    let listBytes = 0;
    rows.listMs.push(await timed(async () => (listBytes = (await mcp.call('list_flows', {})).textBytes)));
    rows.listBytes.push(listBytes);
    let toolsBytes = 0;
    rows.toolsMs.push(
      await timed(async () => {
        toolsBytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
      }),
    );
    rows.toolsBytes.push(toolsBytes);
    // Delete first: at the cap there is room for one flow only once one has gone.
    const last = `lib-${saved - 1}`;
    rows.saveMs.push(
      await timed(async () => {
        await tools.call('delete_flow', { name: last });
        await tools.call('save_flow', { name: last, document: document(saved - 1) });
      }),
    );
    // The first listing after a change reads the library from the store again.
    const relist: number[] = [];
    for (let i = 0; i < REPS; i++) {
      await tools.call('save_flow', { name: last, document: document(saved - 1 + i + 1) });
      relist.push(await timed(() => mcp.call('list_flows', {}), 1));
    }
    rows.relistMs.push(median(relist));
    progress(
      `library of ${saved}: list_flows ${rows.listMs.at(-1)?.toFixed(0)} ms / ${listBytes} B, tools/list ${toolsBytes} B`,
    );
  }
  const sizes = ['10', '100', refused ? `${saved.toLocaleString('en-US')} (the cap)` : '1,000'];
  const sizesN = [10, 100, saved];
  const note = refused
    ? `a library of 1,000 flows is refused at ${saved} one-step flows ("${refused}"); the third column is ${saved}`
    : undefined;
  const d = 'library size (saved flows)';
  // The cap's note once, under the dimension's first row.
  const row = (measure: string, values: number[], unit: GrowthRow['unit'], told?: string): GrowthRow => ({
    dimension: d,
    measure,
    sizes,
    sizesN,
    values,
    unit,
    note: told,
  });
  return [
    row('`list_flows` ms (MCP)', rows.listMs, 'ms', note),
    row('`list_flows` ms, the first after a save (the library read again)', rows.relistMs, 'ms'),
    row(
      '`list_flows` answer bytes',
      rows.listBytes,
      'B',
      `at most ${MAX_FLOW_LIST_BYTES.toLocaleString('en-US')} B of flows, the rest counted in left_out (MAX_FLOW_LIST_BYTES)`,
    ),
    row('`tools/list` ms (MCP)', rows.toolsMs, 'ms'),
    row('`tools/list` bytes', rows.toolsBytes, 'B'),
    row('`delete_flow` + `save_flow` ms', rows.saveMs, 'ms'),
  ];
}

// ---------------------------------------------------------------- files per workspace

async function filesPerWorkspace(env: GrowthEnv): Promise<GrowthRow[]> {
  const workspace = 'growth-files';
  const tools = new DirectToolCaller(env.server.deps, { key: `named:${workspace}`, workspace });
  const dir = join(env.dataDir, workspace, 'files');
  await mkdir(dir, { recursive: true });
  let made = 0;
  const ms: number[] = [];
  const bytes: number[] = [];
  for (const size of [10, 100, 1000]) {
    while (made < size) {
      await writeFile(join(dir, `report-${String(made).padStart(4, '0')}.csv`), `id,value\n${made},x\n`);
      made += 1;
    }
    let answer = 0;
    ms.push(await timed(async () => (answer = (await tools.call('workspace_files', {})).textBytes)));
    bytes.push(answer);
    progress(`${size} files: ${ms.at(-1)?.toFixed(0)} ms, ${answer} B`);
  }
  const sizes = ['10', '100', '1,000'];
  const d = 'files per workspace';
  return [
    { dimension: d, measure: '`workspace_files` ms', sizes, values: ms, unit: 'ms' },
    {
      dimension: d,
      measure: '`workspace_files` answer bytes',
      sizes,
      values: bytes,
      unit: 'B',
      note: `lists the newest ${MAX_LISTED_FILES} and counts the rest (MAX_LISTED_FILES)`,
    },
  ];
}

// ---------------------------------------------------------------- remembered workspaces

async function workspaces(env: GrowthEnv): Promise<GrowthRow[]> {
  const store = env.server.store;
  const base = await heapAfterGc();
  let made = 0;
  const listMs: number[] = [];
  const listBytes: number[] = [];
  const heapMb: number[] = [];
  const openScanMs: number[] = [];
  const caller = { key: 'named:growth-open', workspace: 'growth-open', owner: 'growth' };
  for (const size of [10, 100, 1000]) {
    while (made < size) {
      const now = new Date().toISOString();
      await store.put(`named:growth-ws-${made}`, {
        browser: 'chrome',
        window: { width: 1280, height: 900 },
        openedAt: now,
        touchedAt: now,
        owner: `agent-${made % 50}`,
        url: `${env.siteUrl}/table.html?ws=${made}`,
        title: `Table ${made}`,
      });
      made += 1;
    }
    let answer = 0;
    listMs.push(
      await timed(async () => {
        const response = await fetch(`${env.url}/admin/api/workspaces`, {
          headers: { authorization: `Bearer ${env.adminToken}` },
        });
        const text = await response.text();
        if (!response.ok) {
          throw new Error(`GET /admin/api/workspaces answered ${response.status}: ${text.slice(0, 200)}`);
        }
        answer = Buffer.byteLength(text);
      }),
    );
    listBytes.push(answer);
    heapMb.push(((await heapAfterGc()) - base) / 1e6);
    // What opening a browser reads of the store before it asks the Grid (BROWSERS_PER_CALLER).
    const ws = env.server.deps.workspaces as unknown as { checkCap(owner: string, key?: string): Promise<void> };
    openScanMs.push(await timed(() => ws.checkCap(caller.owner, caller.key)));
    progress(
      `${size} workspaces: listing ${listMs.at(-1)?.toFixed(0)} ms / ${answer} B, heap +${heapMb.at(-1)?.toFixed(1)} MB`,
    );
  }
  const sizes = ['10', '100', '1,000'];
  const d = 'remembered workspaces';
  return [
    { dimension: d, measure: '`GET /admin/api/workspaces` ms', sizes, values: listMs, unit: 'ms' },
    { dimension: d, measure: '`GET /admin/api/workspaces` bytes', sizes, values: listBytes, unit: 'B' },
    { dimension: d, measure: 'server heap after GC, over the empty server', sizes, values: heapMb, unit: 'MB' },
    {
      dimension: d,
      measure: 'store work before a browser opens (BROWSERS_PER_CALLER) ms',
      sizes,
      values: openScanMs,
      unit: 'ms',
    },
  ];
}

// ---------------------------------------------------------------- report

function cell(value: number | undefined, unit: GrowthRow['unit']): string {
  if (value === undefined || !Number.isFinite(value)) {
    return '–';
  }
  if (unit === 'MB') {
    return `${value.toFixed(1)} MB`;
  }
  return unit === 'B' ? `${Math.round(value).toLocaleString('en-US')} B` : `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

export function growthTable(rows: GrowthRow[]): string {
  const table = rows.map((row) => {
    const numbers = row.sizesN ?? [10, 100, 1000];
    const { k, name } = slope(numbers, row.values);
    return [
      row.dimension,
      row.measure,
      row.sizes.join(' / '),
      ...row.values.map((v) => cell(v, row.unit)),
      Number.isFinite(k) ? `${name} (k = ${k.toFixed(2)})` : '–',
    ];
  });
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.dimension}, ${r.measure}: ${r.note}`);
  return [
    markdownTable(['dimension', 'measure', 'sizes (1× / 10× / 100×)', '1×', '10×', '100×', 'slope'], table, [
      'l',
      'l',
      'l',
      'r',
      'r',
      'r',
      'l',
    ]),
    '',
    'slope: the exponent k of cost ∝ size^k from 1× to 100× (flat < 0.2 ≤ sublinear < 0.8 ≤ linear ≤ 1.2 < worse than linear).',
    ...[...new Set(notes)],
  ].join('\n');
}

async function main(cleanup: Cleanup): Promise<void> {
  const env = await startGrowthEnv(cleanup, { redis: options.redis });
  const rows: GrowthRow[] = [];
  out('### How cost grows');
  out();
  const store = options.redis ? 'Redis store' : 'memory store';
  out(`${REPS} repetitions per measure (median); one in-process server, ${store}, embedded Grid.`);
  out();
  const dimensions: Record<Dimension, () => Promise<GrowthRow[]>> = {
    page: () => pageSize(env),
    flow: () => flowLength(env),
    library: () => librarySize(env, cleanup),
    files: () => filesPerWorkspace(env),
    workspaces: () => workspaces(env),
  };
  for (const dimension of DIMENSIONS) {
    if (measured(dimension)) {
      rows.push(...(await dimensions[dimension]()));
    }
  }
  out(growthTable(rows));
  if (options.json) {
    writeFileSync(options.json, JSON.stringify(rows, null, 2));
  }
}

runBench(main, Number(options['timeout-minutes']) || 20);
