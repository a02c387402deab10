import { spawn } from 'node:child_process';
import { findCargo, findGeckodriver, locate, packagesFor } from './packages.js';

export interface SetupOptions {
  /** also Redis (the tests, or a REDIS_URL on this host) */
  redis?: boolean;
  /** where progress goes (a person reads it) */
  say?: (line: string) => void;
}

/**
 * Installs what the embedded Grid needs on this Debian/Ubuntu host: the Debian packages through
 * apt when root (else the one apt line to run), and geckodriver built with cargo. Answers the
 * exit code: 1 when something required is still missing.
 */
export async function runSetup(options: SetupOptions = {}): Promise<number> {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const root = process.getuid?.() === 0;
  say('selenium-flow setup: [1/2] Debian packages');
  const missing = [];
  for (const p of packagesFor(root, options.redis ?? false)) {
    if (!(await locate(p))) {
      missing.push(p);
    }
  }
  let status = 0;
  if (missing.length === 0) {
    say('  all present');
  } else {
    const names = missing.map((p) => p.debianPackage);
    const required = missing.filter((p) => p.without === undefined);
    if (!root) {
      say(`  missing: ${missing.map((p) => p.what).join(', ')}`);
      say(`  run as root: apt-get update && apt-get install -y ${names.join(' ')}`);
      status = required.length > 0 ? 1 : 0;
    } else {
      say(`  installing ${names.join(' ')} (apt-get; a minute or more)`);
      const started = Date.now();
      const ok =
        (await run('apt-get', ['update'])) &&
        (await run('apt-get', ['install', '-y', ...names], { DEBIAN_FRONTEND: 'noninteractive' }));
      say(`  ${ok ? 'installed' : 'apt-get failed'} in ${seconds(started)}`);
      status = ok ? 0 : 1;
    }
  }
  say('selenium-flow setup: [2/2] geckodriver (for Firefox)');
  const geckodriver = await findGeckodriver();
  if (geckodriver) {
    say(`  present at ${geckodriver}`);
    return status;
  }
  // The embedded Grid runs its browsers as an unprivileged user who cannot reach into
  // /root/.cargo: the driver goes to /usr/local/bin, which takes root.
  const install = 'cargo install --locked --root /usr/local geckodriver';
  const cargo = await findCargo();
  if (!root || !cargo) {
    say(`  missing: Firefox will be refused (Chromium works). To add it: install Rust, then as root: ${install}`);
    return status;
  }
  say('  building it from crates.io (two to eight minutes, once; cargo prints its progress)');
  const started = Date.now();
  const built = await run(cargo, ['install', '--locked', '--root', '/usr/local', 'geckodriver']);
  say(
    `  ${built ? 'built' : `failed: Firefox will be refused (Chromium works); retry with ${install}`} in ${seconds(started)}`,
  );
  return status;
}

function seconds(since: number): string {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}

/** A long step with its own output on the terminal (apt-get and cargo show their progress). */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}
