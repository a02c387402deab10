/**
 * `npm run bench`: every bench of performance.md in one run, one after the other (never two at
 * once: they would time each other), and `docs/performance.md` written from what they printed,
 * with the date, the commit, the machine and its load. That page is this program's output and
 * is never edited by hand; `--sections` picks some (the page then says which ran), `--no-write`
 * prints the page instead of writing it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO } from './lib/env.js';

/**
 * Each bench with the sizes a shared 2-core machine finishes in about half an hour altogether:
 * fewer rounds than each bench's default, so each ratio is read with its spread.
 */
const SECTIONS = {
  task: {
    title: 'The 12-step task, what a model reads, cold start and memory',
    args: [
      'bench/twelve-steps.ts',
      '--browsers',
      'chrome',
      // Eight rounds: at four the same build read 1.03× one run and 1.05× the next.
      '--rounds',
      '8',
      '--pairs',
      '6',
      '--open-rounds',
      '6',
      '--profile-rounds',
      '1',
      '--cold-runs',
      '3',
    ],
  },
  fence: {
    title: 'What the fence costs',
    args: ['bench/fence.ts', '--rounds', '4'],
  },
  cold: {
    title: 'Cold start against Playwright MCP',
    args: ['bench/cold-start.ts', '--runs', '9', '--breakdown', '0'],
  },
  install: {
    title: 'Install: the packed package, and npm install to the first tools/list',
    args: ['bench/install.ts', '--runs', '5'],
  },
  growth: { title: 'How cost grows', args: ['bench/growth.ts', '--reps', '3'] },
  concurrency: {
    title: 'Many agents at once',
    args: [
      'bench/concurrency.ts',
      '--levels',
      '8,16',
      '--nodes',
      '2',
      // Two rounds: one round's ratio at 8 swung from 0.78× to 1.17× between configurations.
      '--rounds',
      '2',
      '--reference-tasks',
      '1',
      '--workloads',
      'reference',
      '--skip-warm-up',
    ],
  },
  soak: { title: 'Soak: memory over 1,000 runs and 1,000 calls', args: ['bench/soak.ts'] },
} as const;
type SectionId = keyof typeof SECTIONS;
const ORDER = Object.keys(SECTIONS) as SectionId[];

const { values: options } = parseArgs({
  options: {
    sections: { type: 'string', default: Object.keys(SECTIONS).join(',') },
    'no-write': { type: 'boolean', default: false },
    // keep the sections of the page not run now, each with its own command and load line
    resume: { type: 'boolean', default: false },
  },
});
const chosen = (options.sections ?? '').split(',').map((s) => s.trim());
for (const id of chosen) {
  if (!(id in SECTIONS)) {
    throw new Error(`--sections takes ${Object.keys(SECTIONS).join(', ')} (got ${id})`);
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
const git = (...args: string[]) => spawnSync('git', args, { cwd: REPO, encoding: 'utf8' }).stdout.trim();

interface Ran {
  id: SectionId;
  /** the section as an earlier run wrote it (--resume): kept verbatim */
  kept?: string;
  text: string;
  ok: boolean;
  minutes: number;
  loadBefore: string;
  loadAfter: string;
}

/** One bench in a child process; its stdout is the section, its stderr goes by as progress. */
function run(id: SectionId): Promise<Ran> {
  const loadBefore = load();
  const started = Date.now();
  process.stderr.write(`bench: ${id}: npx tsx ${SECTIONS[id].args.join(' ')} (load ${loadBefore})\n`);
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsx', ...SECTIONS[id].args], {
      cwd: REPO,
      env: { ...process.env, SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const tail: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail.push(...chunk.toString().split('\n'));
      tail.splice(0, Math.max(0, tail.length - 20));
    });
    child.on('close', (code) => {
      const ok = code === 0;
      const text = ok
        ? stdout
        : `${stdout}\n**This section failed** (exit ${code}); the last lines it printed:\n\n\`\`\`\n${tail.join('\n').trim()}\n\`\`\`\n`;
      resolve({ id, text, ok, minutes: (Date.now() - started) / 60_000, loadBefore, loadAfter: load() });
    });
  });
}

/** A bench's own first heading is the page's section heading: one level below the page's. */
function demote(text: string): string {
  return text
    .replace(/^> .*\n/gm, '')
    .replace(/^(#{1,4}) /gm, (_m, hashes: string) => `${hashes.length <= 2 ? '###' : '####'} `)
    .trim();
}

async function main(): Promise<void> {
  const started = new Date();
  const commit = git('rev-parse', '--short=12', 'HEAD');
  const subject = git('log', '-1', '--format=%s');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const uptime = spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
  const ran: Ran[] = options.resume ? earlierSections() : [];
  // The page is written after each section: a run stopped part way still leaves what it measured, and says so.
  const keptCount = ran.length;
  for (const id of chosen as SectionId[]) {
    ran.push(await run(id));
    const left = chosen.slice(ran.length - keptCount);
    write(pageOf(started, { commit, subject, dirty, uptime }, ran, left));
  }
  if (ran.some((r) => !r.ok)) {
    process.exitCode = 1;
  }
}

/** The sections an earlier run wrote on the page, for those not run now (--resume). */
function earlierSections(): Ran[] {
  let page = '';
  try {
    page = readFileSync(join(REPO, 'docs', 'performance.md'), 'utf8');
  } catch {
    return [];
  }
  const blocks = page.split(/^## /m).slice(1);
  return (Object.keys(SECTIONS) as SectionId[]).flatMap((id) => {
    const block = blocks.find((b) => b.startsWith(`${SECTIONS[id].title}\n`));
    if (!block || chosen.includes(id)) {
      return [];
    }
    return [{ id, kept: `## ${block.trim()}`, text: '', ok: true, minutes: 0, loadBefore: '', loadAfter: '' }];
  });
}

function write(page: string): void {
  if (options['no-write']) {
    return;
  }
  writeFileSync(join(REPO, 'docs', 'performance.md'), page);
  process.stderr.write('bench: wrote docs/performance.md\n');
}

interface Revision {
  commit: string;
  subject: string;
  dirty: boolean;
  uptime: string;
}

function pageOf(started: Date, { commit, subject, dirty, uptime }: Revision, ran: Ran[], left: string[]): string {
  const cpu = cpus();
  const page = [
    '# Performance',
    '',
    '<!-- Written by `npm run bench` (bench/report.ts) from one run; do not edit by hand: run it again. -->',
    '',
    'What a user pays for a browser task through selenium-flow: wall-clock time, and the bytes a model reads.',
    'The measures and the bars are in the performance spec; every table below is what the benches printed in',
    'this one run. The machine is shared and noisy: only the ratios against a baseline of the same run mean',
    'anything, and each section says the load it ran at.',
    '',
    '## This run',
    '',
    `- **Date:** ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC (${((Date.now() - started.getTime()) / 60_000).toFixed(0)} min)`,
    `- **Commit:** \`${commit}\` "${subject}"${dirty ? ' (with uncommitted changes)' : ''}`,
    `- **Machine:** ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch}, Node ${process.version}`,
    `- **Load at the start:** \`${uptime}\``,
    `- **Sections:** ${[...ran]
      .sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id))
      .map((r) =>
        r.kept
          ? `${r.id} (kept from the page's earlier run, as it was written)`
          : `${r.id} (${r.minutes.toFixed(1)} min, load ${r.loadBefore} → ${r.loadAfter}${r.ok ? '' : ', FAILED'})`,
      )
      .join('; ')}${left.length > 0 ? `; not run yet: ${left.join(', ')}` : ''}`,
    '',
    // In the page's own order: a section run now takes the place it had, between those kept.
    ...[...ran]
      .sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id))
      .flatMap((r) =>
        r.kept
          ? [r.kept, '']
          : [
              `## ${SECTIONS[r.id].title}`,
              '',
              `\`npx tsx ${SECTIONS[r.id].args.join(' ')}\`; load (1 / 5 / 15 min) ${r.loadBefore} at its start, ${r.loadAfter} at its end.`,
              '',
              demote(r.text),
              '',
            ],
      ),
  ].join('\n');
  if (options['no-write'] && left.length === 0) {
    process.stdout.write(page);
  }
  return page;
}

await main();
