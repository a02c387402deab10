import type { BootCosts, ColdStart, OutlineSize, ToolsListSize } from './measures.js';
import type { ProfileReport } from './profile.js';
import { bytes, markdownTable, ms, ms1, triple } from './stats.js';
import { STEPS } from './task.js';
import { out } from './task-tables.js';

export const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB (${(b / 1e6).toFixed(1)} MB)`;

/** What a model reads (tools/list, the outline), where the MCP time goes, cold start and memory. */

export function printToolsList(t: ToolsListSize): void {
  out(
    `### tools/list: ${t.tools} tools, ${bytes(t.toolsBytes)} B (whole result with _meta: ${bytes(t.resultBytes)} B; MIRROR_TOOLS=off: ${bytes(t.withoutMirrorsBytes)} B)`,
  );
  out();
  out(
    markdownTable(
      ['tool', 'bytes', 'description', 'inputSchema', 'name, title, annotations'],
      t.perTool.map((p) => [p.name, bytes(p.bytes), bytes(p.description), bytes(p.inputSchema), bytes(p.rest)]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  const sum = (f: (p: ToolsListSize['perTool'][number]) => number) => t.perTool.reduce((a, p) => a + f(p), 0);
  out(
    `| **all** | **${bytes(sum((p) => p.bytes))}** | ${bytes(sum((p) => p.description))} | ${bytes(sum((p) => p.inputSchema))} | ${bytes(sum((p) => p.rest))} |`,
  );
  out();
}

export function printOutline(o: OutlineSize): void {
  out(
    `### outline of the heavy page: ${bytes(o.outlineBytes)} B of outline (${bytes(o.textBytes)} B answer text), ${o.lines} lines; ` +
      `${o.selectorsChecked} selectors checked, ${o.badSelectors.length} not unique or broken; ` +
      `${o.formControls - o.missingControls.length}/${o.formControls} form fields and buttons found`,
  );
  if (o.badSelectors.length > 0 || o.missingControls.length > 0) {
    out(
      `bad selectors: ${o.badSelectors.join(', ') || 'none'}; controls without one: ${o.missingControls.join(', ') || 'none'}`,
    );
  }
  out();
}

export function printProfile(p: ProfileReport): void {
  out(`### Where the MCP (HTTP) time goes, ${p.rounds} instrumented rounds, median ms per step`);
  out();
  out(
    markdownTable(
      [
        '#',
        'step',
        'raw',
        'MCP',
        'gap',
        'hop',
        'bind',
        'tool',
        'page state',
        'store (ops)',
        'other server',
        'MCP commands: bind → tool → after',
        'raw commands',
      ],
      p.steps.map((s, i) => [
        String(i + 1),
        STEPS[i] ?? '',
        ms1(s.rawMs),
        ms1(s.clientMs),
        ms1(s.clientMs - s.rawMs),
        ms1(s.hopMs),
        ms1(s.bindMs),
        ms1(s.toolMs),
        ms1(s.pageStateMs),
        `${ms1(s.storeMs)} (${s.storeOps})`,
        ms1(s.otherServerMs),
        s.commands,
        s.rawCommands,
      ]),
      ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
    ),
  );
  const total = (f: (s: ProfileReport['steps'][number]) => number) => p.steps.reduce((a, s) => a + f(s), 0);
  out(
    `| | **sum** | ${ms1(total((s) => s.rawMs))} | ${ms1(total((s) => s.clientMs))} | ${ms1(total((s) => s.clientMs - s.rawMs))} | ${ms1(total((s) => s.hopMs))} | ${ms1(total((s) => s.bindMs))} | ${ms1(total((s) => s.toolMs))} | ${ms1(total((s) => s.pageStateMs))} | ${ms1(total((s) => s.storeMs))} | ${ms1(total((s) => s.otherServerMs))} | | |`,
  );
  out();
  out(
    'hop: client round trip minus server time (MCP client, JSON-RPC, loopback HTTP). bind: WebDriver before the tool runs',
  );
  out(
    '(step 1: the browser opened on demand). page state: the url + title read after every acting tool. other server: MCP SDK,',
  );
  out('argument validation, Fastify, JSON.');
  out();
  out(
    `Protocol floor: a tools/call refused at argument validation (no browser) takes ${ms1(p.floorMs.http)} ms over HTTP, ` +
      `${ms1(p.floorMs.stdio)} ms over stdio (median of 25).`,
  );
  out();
  out(
    markdownTable(
      ['work the raw script does not do (median per task)', 'ms'],
      p.avoidable.map((a) => [a.what, ms1(a.ms)]),
      ['l', 'r'],
    ),
  );
  out();
  out(
    markdownTable(
      ['WebDriver command (MCP path)', 'per task', 'median ms'],
      Object.entries(p.commandMedians)
        .sort((a, b) => b[1].count * b[1].medianMs - a[1].count * a[1].medianMs)
        .map(([name, c]) => [name, c.count.toFixed(0), ms1(c.medianMs)]),
      ['l', 'r', 'r'],
    ),
  );
  out();
}

export function printCold(c: ColdStart): void {
  out(`### Cold start (Grid already up), ${c.entry}, ${c.samples.serve.length} runs each, ms: min / **median** / max`);
  out();
  out(
    markdownTable(
      ['server', 'spawn → tools/list answered'],
      [
        ['serve (HTTP)', triple(c.serve)],
        ['stdio', triple(c.stdio)],
      ],
      ['l', 'r'],
    ),
  );
  out();
  out(
    `Idle RSS of \`serve\`: ${mib(c.idleRssBytes)} after boot, ${mib(c.afterTaskRssBytes)} after one 12-step task went through it.`,
  );
  out();
}

export function printBoot(boot: BootCosts, runs: number): void {
  out(
    `### Where a cold start goes (fresh \`node\`, each import charged to the first that needs it), median of ${runs} runs`,
  );
  out();
  const chain = boot.filter((b) => !b.part);
  out(
    markdownTable(
      ['phase', 'ms'],
      [
        ...chain.map((b) => [b.step, ms(b.ms)]),
        ['**sum**', `**${ms(chain.reduce((a, b) => a + b.ms, 0))}**`],
        ...boot.filter((b) => b.part).map((b) => [`_measured apart, first call: ${b.step}_`, `_${ms(b.ms)}_`]),
      ],
      ['l', 'r'],
    ),
  );
  out();
}
