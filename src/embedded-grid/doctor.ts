import type { PortRange } from './fence.js';
import { describeFence, type FenceSetting } from './fence-report.js';
import { findGeckodriver, locate, packagesFor } from './packages.js';
import { findJar, isReadable } from './requirements.js';
import { withoutCredentials } from '../grid/fetch.js';
import { fetchGridStatus, upSlots } from '../grid/status.js';

export interface DoctorOptions {
  gridUrl: string | undefined;
  loopbackPorts: readonly PortRange[];
  fence: FenceSetting;
  say?: (line: string) => void;
}

type Verdict = 'ok' | 'missing' | 'note';
interface Check {
  verdict: Verdict;
  what: string;
  detail: string;
}

const MARK: Record<Verdict, string> = { ok: '✓', missing: '✗', note: '!' };
const SETUP = 'run `selenium-flow setup` (as root it installs them)';

/**
 * What this host has for serving browsers, and how to fix what it lacks. Answers the exit code:
 * 1 when something required is missing (the Grid at GRID_URL, or the embedded Grid's parts).
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const checks = options.gridUrl ? await remoteGrid(options.gridUrl) : await embeddedGrid(options.loopbackPorts);
  checks.unshift(nodeCheck());
  checks.push(fenceCheck(options));
  for (const c of checks) {
    say(`${MARK[c.verdict]} ${c.what}: ${c.detail}`);
  }
  const missing = checks.filter((c) => c.verdict === 'missing').length;
  say(missing === 0 ? 'Ready.' : `${missing} required part${missing === 1 ? ' is' : 's are'} missing (✗ above).`);
  return missing === 0 ? 0 : 1;
}

function nodeCheck(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 20
    ? { verdict: 'ok', what: 'Node', detail: process.version }
    : { verdict: 'missing', what: 'Node', detail: `${process.version}; install Node 20, 22 or 24` };
}

async function remoteGrid(gridUrl: string): Promise<Check[]> {
  const where = withoutCredentials(gridUrl);
  try {
    const status = await fetchGridStatus(gridUrl);
    const browsers = [...new Set(upSlots(status).flatMap((s) => s.stereotype?.browserName ?? []))].sort();
    return [
      {
        verdict: status.ready === true ? 'ok' : 'missing',
        what: 'Grid (GRID_URL)',
        detail:
          status.ready === true
            ? `${where} is ready${browsers.length ? `, offering ${browsers.join(', ')}` : ''}`
            : `${where} answers but is not ready (no node up?); check its nodes`,
      },
    ];
  } catch {
    return [
      {
        verdict: 'missing',
        what: 'Grid (GRID_URL)',
        detail: `${where} does not answer /status; start it, or fix GRID_URL (unset, the embedded Grid is used)`,
      },
    ];
  }
}

async function embeddedGrid(loopbackPorts: readonly PortRange[]): Promise<Check[]> {
  const root = process.getuid?.() === 0;
  const checks: Check[] = [];
  checks.push(await jarCheck());
  for (const p of packagesFor(root, false)) {
    const at = await locate(p);
    checks.push(
      at
        ? { verdict: 'ok', what: p.what, detail: at }
        : {
            verdict: p.without === undefined ? 'missing' : 'note',
            what: p.what,
            detail: `missing${p.without ? ` (${p.without})` : ''}: apt-get install -y ${p.debianPackage}, or ${SETUP}`,
          },
    );
  }
  const geckodriver = await findGeckodriver();
  checks.push(
    geckodriver
      ? { verdict: 'ok', what: 'geckodriver', detail: geckodriver }
      : {
          verdict: 'note',
          what: 'geckodriver',
          detail: `missing (no Firefox): ${SETUP}, or as root: cargo install --locked --root /usr/local geckodriver`,
        },
  );
  const open = loopbackPorts.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`));
  checks.push({
    verdict: 'ok',
    what: 'Loopback ports open to browsers',
    detail: open.length
      ? `${open.join(', ')} (BROWSER_LOOPBACK_PORTS)`
      : 'none (set BROWSER_LOOPBACK_PORTS, e.g. 3000,8000-8010, for a site under test on this host)',
  });
  return checks;
}

async function jarCheck(): Promise<Check> {
  try {
    const jar = findJar();
    return (await isReadable(jar))
      ? { verdict: 'ok', what: 'Selenium Grid jar', detail: jar }
      : { verdict: 'missing', what: 'Selenium Grid jar', detail: `unreadable at ${jar}: reinstall selenium-flow` };
  } catch (err) {
    return { verdict: 'missing', what: 'Selenium Grid jar', detail: err instanceof Error ? err.message : String(err) };
  }
}

// The same report the banner, /ready and the log give once the Grid runs; only BROWSER_FENCE=off
// is a finding, since an external Grid's fence is its operator's and cannot be seen from here.
function fenceCheck(options: DoctorOptions): Check {
  const report = describeFence({
    gridUrl: options.gridUrl,
    fence: options.fence,
    loopbackPorts: options.loopbackPorts,
  });
  return {
    verdict: report.kind === 'proxy' || report.kind === 'proxy+firewall+user' ? 'ok' : 'note',
    what: 'Fence',
    detail: report.summary,
  };
}
