import type { HostPort } from '../fence-settings.js';
import type { PortRange } from './fence.js';
import { describeFence, type FenceSetting } from './fence-report.js';
import { findGeckodriver, locate, packagesFor } from './packages.js';
import { browserSandbox } from './sandbox.js';
import { findJar, isReadable } from './requirements.js';
import { MANAGED_DOWNLOADS_SWITCH } from '../errors.js';
import { bidiRouteOf, BROWSER_KINDS, type BrowserKind } from '../grid/capabilities.js';
import { withoutCredentials } from '../grid/fetch.js';
import { Grid } from '../grid/grid.js';
import type { BrowserFeatures } from '../grid/offers.js';
import { fetchGridStatus, upSlots, type GridStatusAnswer } from '../grid/status.js';
import { checkIssuer } from '../oauth/doctor.js';

export interface DoctorOptions {
  gridUrl: string | undefined;
  loopbackPorts: readonly PortRange[];
  fence: FenceSetting;
  /** FENCE_LISTEN, FENCE_ADDRESS and FENCE_ALLOW: where a Grid at GRID_URL reaches this server's fence */
  fencePlace?: { fenceListen?: HostPort; fenceAddress?: HostPort; allow?: readonly string[] };
  /** OAUTH_ISSUER, and whether OAUTH_CLIENT_ID is set to introspect its tokens */
  oauth?: { issuer: string; introspects: boolean };
  say?: (line: string) => void;
  /** BROWSER_SANDBOX, as the server sends it: the trial browser is asked for exactly as the server asks */
  sandbox?: boolean;
  /** GRID_SLOT_WAIT: how long the trial browser waits for a slot */
  slotWaitSeconds?: number;
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
 * 1 when something required is missing (the Grid at GRID_URL, a browser it cannot open, the
 * embedded Grid's parts, or an OAUTH_ISSUER whose tokens could not be checked). With GRID_URL, it
 * opens and ends one browser of each kind the Grid offers, and reports what each offers:
 * managed downloads, BiDi, VNC.
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const checks = options.gridUrl
    ? await remoteGrid({ ...options, gridUrl: options.gridUrl })
    : await embeddedGrid(options.loopbackPorts);
  checks.unshift(nodeCheck());
  checks.push(fenceCheck(options));
  if (options.oauth) {
    const report = await checkIssuer(options.oauth.issuer, options.oauth.introspects);
    checks.push({ verdict: report.ok ? 'ok' : 'missing', what: 'OAuth issuer (OAUTH_ISSUER)', detail: report.detail });
  }
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

async function remoteGrid(options: DoctorOptions & { gridUrl: string }): Promise<Check[]> {
  const { gridUrl } = options;
  const where = withoutCredentials(gridUrl);
  let status: GridStatusAnswer;
  try {
    status = await fetchGridStatus(gridUrl);
  } catch {
    return [
      {
        verdict: 'missing',
        what: 'Grid (GRID_URL)',
        detail: `${where} does not answer /status; start it, or fix GRID_URL (unset, the embedded Grid is used)`,
      },
    ];
  }
  const browsers = [...new Set(upSlots(status).flatMap((s) => s.stereotype?.browserName ?? []))].sort();
  const checks: Check[] = [
    {
      verdict: status.ready === true ? 'ok' : 'missing',
      what: 'Grid (GRID_URL)',
      detail:
        status.ready === true
          ? `${where} is ready${browsers.length ? `, offering ${browsers.join(', ')}` : ''}`
          : `${where} answers but is not ready (no node up?); check its nodes`,
    },
  ];
  if (status.ready !== true) {
    return checks;
  }
  const grid = new Grid(gridUrl, { sandbox: options.sandbox ?? false });
  for (const kind of browsers.filter(isBrowserKind)) {
    const trial = await trialBrowser(grid, kind, options.slotWaitSeconds ?? TRIAL_SECONDS);
    checks.push(trial.check);
    const features = (await grid.offers.features().catch(() => undefined))?.get(kind);
    if (features) {
      checks.push(...featureChecks(kind, features, trial.bidi));
    }
  }
  return checks;
}

/** How long the trial browser waits for a slot when GRID_SLOT_WAIT is not given. */
const TRIAL_SECONDS = 30;

function isBrowserKind(name: string): name is BrowserKind {
  return BROWSER_KINDS.some((kind) => kind === name);
}

/**
 * One browser opened as the server opens them, then ended: the only proof that a request of
 * ours matches a slot (a Grid queues one that matches none, and only says so when it gives up),
 * and the only way to learn its BiDi route (a stereotype does not say). A browser that arrives
 * after the wait is ended when it does, as long as this process still runs.
 */
async function trialBrowser(
  grid: Grid,
  kind: BrowserKind,
  seconds: number,
): Promise<{ check: Check; bidi?: 'webSocketUrl' | 'cdp' | 'none' }> {
  const started = Date.now();
  const pending = grid.open(kind, { width: 1280, height: 900 });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000);
  });
  const first = await Promise.race([
    pending.then(
      (opened) => ({ opened }),
      (error: unknown) => ({ error }),
    ),
    late,
  ]);
  clearTimeout(timer);
  if (first === 'late') {
    void pending.then((opened) => grid.end(opened.gridId)).catch(() => undefined);
    return {
      check: {
        verdict: 'missing',
        what: kind,
        detail: `no browser within ${seconds} s (GRID_SLOT_WAIT): every ${kind} slot is busy, or none matches what selenium-flow asks; free a slot, or compare the nodes' stereotypes with docs/browsers.md`,
      },
    };
  }
  if ('error' in first) {
    const said = first.error instanceof Error ? first.error.message : String(first.error);
    return { check: { verdict: 'missing', what: kind, detail: `a browser did not open: ${said}` } };
  }
  const opened = first.opened;
  const ms = Date.now() - started;
  await grid.end(opened.gridId).catch(() => undefined);
  return {
    check: { verdict: 'ok', what: kind, detail: `a browser opened in ${(ms / 1000).toFixed(1)} s, and was ended` },
    bidi: bidiRouteOf(opened.capabilities)?.via ?? 'none',
  };
}

const BIDI_USES = 'network capture, network_body and following the pages a person visits';

/** What the Grid offers one browser, each with its consequence and, where it is off, how to turn it on. */
function featureChecks(
  kind: BrowserKind,
  f: BrowserFeatures,
  bidi: 'webSocketUrl' | 'cdp' | 'none' | undefined,
): Check[] {
  const of = (n: number) => `${n} of ${f.slots} slot${f.slots === 1 ? '' : 's'}`;
  const learned = bidi ?? (f.bidi === null ? undefined : f.bidi ? 'on' : 'none');
  return [
    f.managedDownloads > 0
      ? { verdict: 'ok', what: `${kind} managed downloads`, detail: `on (${of(f.managedDownloads)})` }
      : {
          verdict: 'note',
          what: `${kind} managed downloads`,
          detail: `off (${of(0)}): a browser opens, and its downloads answer that the Grid does not offer them; to have them, ${MANAGED_DOWNLOADS_SWITCH}`,
        },
    learned === undefined
      ? { verdict: 'note', what: `${kind} BiDi`, detail: 'unknown: no browser opened to ask' }
      : learned === 'none'
        ? {
            verdict: 'note',
            what: `${kind} BiDi`,
            detail: `off: its browsers announce neither webSocketUrl nor se:cdp, so ${BIDI_USES} are unavailable; start the nodes with --enable-bidi true and --enable-cdp true (the Grid's defaults)`,
          }
        : {
            verdict: 'ok',
            what: `${kind} BiDi`,
            detail:
              learned === 'webSocketUrl'
                ? "on (the browser's own, webSocketUrl, through the Grid)"
                : learned === 'cdp'
                  ? "on (spoken by this server over the Grid's DevTools proxy, se:cdp)"
                  : 'on',
          },
    f.vnc > 0
      ? { verdict: 'ok', what: `${kind} VNC`, detail: `on (${of(f.vnc)}): a person can watch those (docs/live.md)` }
      : f.vncUnlocked > 0
        ? {
            verdict: 'note',
            what: `${kind} VNC`,
            detail: `not watched (${of(0)}): ${f.vncUnlocked} slot(s) have VNC but do not lock the browser's window (no selenium-flow:lockedWindow), so a person in Control would reach the node; see docs/security.md`,
          }
        : {
            verdict: 'note',
            what: `${kind} VNC`,
            detail: `off (${of(0)}): no live view of ${kind}; a node with se:vncEnabled offers one (docs/live.md)`,
          },
  ];
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
  const { missing: unsandboxed } = await browserSandbox([]);
  checks.push(
    unsandboxed === undefined
      ? {
          verdict: 'ok',
          what: "Browsers' sandbox",
          detail: 'each browser runs in a sandbox of its own with its policies: watchable slots are offered',
        }
      : {
          verdict: 'note',
          what: "Browsers' sandbox",
          detail: `none, so no watchable browser (a person in Control would reach this machine through the browser's window): ${unsandboxed}`,
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

// The same report the banner, /ready and the log give once the Grid runs: BROWSER_FENCE=off is a
// finding, and a Grid elsewhere with no FENCE_ADDRESS a missing part (serve would not start).
function fenceCheck(options: DoctorOptions): Check {
  const report = describeFence({
    gridUrl: options.gridUrl,
    fence: options.fence,
    loopbackPorts: options.loopbackPorts,
    ...options.fencePlace,
  });
  const verdict = report.missing !== undefined ? 'missing' : report.kind === 'none' ? 'note' : 'ok';
  return { verdict, what: 'Fence', detail: report.summary };
}
