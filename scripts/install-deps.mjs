#!/usr/bin/env node
// Installs what `npm start` and `npm test` need. Plain Node with no dependencies: it runs before `npm ci`.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const withRedis = process.argv.includes('--with-redis');

installNpmDependencies();
installSystemDependencies();
installGeckodriver();

function installNpmDependencies() {
  // The shrinkwrap is the lock that ships in the package: what a user installs is what the tests ran.
  const lock = join(ROOT, 'npm-shrinkwrap.json');
  if (existsSync(lock)) {
    if (npmTreeOlderThan(lock)) {
      run('npm', ['ci']);
    }
  } else if (!existsSync(join(ROOT, 'node_modules'))) {
    run('npm', ['install']);
  }
}

// npm rewrites node_modules/.package-lock.json on every install, just after the lock.
function npmTreeOlderThan(lock) {
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  return !existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs;
}

function installSystemDependencies() {
  const missing = missingDebianPackages();
  if (missing.length === 0) {
    return;
  }
  const names = missing.map((m) => m.debianPackage);
  const install = ['apt-get', 'install', '-y', ...names];
  if (process.getuid?.() !== 0) {
    const required = missing.some((m) => !m.optional);
    const say = required ? console.error : console.warn;
    say(`Missing system packages. Run as root: apt-get update && ${install.join(' ')}`);
    if (required) {
      process.exit(1);
    }
    return;
  }
  console.log(`Installing Debian packages: ${names.join(' ')}`);
  run('apt-get', ['update']);
  run(install[0], install.slice(1), { DEBIAN_FRONTEND: 'noninteractive' });
}

// Firefox is optional: a machine without it still serves Chromium, and Firefox is refused naming it.
function missingDebianPackages() {
  const checks = [
    [isExecutable('/usr/bin/chromium'), 'chromium'],
    [isExecutable('/usr/bin/chromedriver'), 'chromium-driver'],
    [isOnPath('java'), 'openjdk-17-jre-headless'],
    [isExecutable('/usr/bin/firefox-esr'), 'firefox-esr', true],
    // The embedded Grid's watchable slot (docs/live.md); without them it says it has no live view.
    [isExecutable('/usr/bin/Xvfb'), 'xvfb', true],
    [isExecutable('/usr/bin/x11vnc'), 'x11vnc', true],
    [isExecutable('/usr/bin/websockify'), 'websockify', true],
  ];
  if (process.getuid?.() === 0) {
    // As root, the embedded Grid runs its browsers as an unprivileged user and fences them off
    // this host's ports with an nftables table (src/embedded-grid/fence.ts).
    checks.push([isExecutable('/usr/sbin/nft'), 'nftables']);
  }
  if (withRedis) {
    checks.push([isOnPath('redis-server'), 'redis-server']);
  }
  return checks
    .filter(([present]) => !present)
    .map(([, debianPackage, optional = false]) => ({ debianPackage, optional }));
}

// Debian 12 packages no geckodriver and this machine may not download binaries, so Mozilla's
// driver is built from crates.io (a few minutes, once). Firefox is
// optional: without cargo, or when the build fails, everything Chromium still works.
function installGeckodriver() {
  if (findGeckodriver()) {
    return;
  }
  const cargo = isOnPath('cargo') ? 'cargo' : [join(homedir(), '.cargo', 'bin', 'cargo')].find(isExecutable);
  if (!cargo) {
    console.warn(
      'geckodriver is missing and cargo is not installed: Firefox will be refused (install Rust, then `cargo install geckodriver`).',
    );
    return;
  }
  console.log('Building geckodriver from crates.io for Firefox (a few minutes, once)...');
  // As root it goes to /usr/local/bin: the embedded Grid runs its browsers as an unprivileged
  // user, who cannot reach into /root/.cargo.
  const into = process.getuid?.() === 0 ? ['--root', '/usr/local'] : [];
  const result = spawnSync(cargo, ['install', '--locked', ...into, 'geckodriver'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.warn('`cargo install geckodriver` failed: Firefox will be refused; Chromium works as before.');
  }
}

function findGeckodriver() {
  return [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), join(homedir(), '.cargo', 'bin')]
    .map((dir) => join(dir, 'geckodriver'))
    .find(isExecutable);
}

function isOnPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => isExecutable(join(dir, command)));
}

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(
      `\`${command} ${args.join(' ')}\` failed (${result.error?.message ?? `exit code ${result.status}`}).`,
    );
    process.exit(result.status ?? 1);
  }
}
