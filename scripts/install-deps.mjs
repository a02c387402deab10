#!/usr/bin/env node
// Installs what `npm start` and `npm test` need. Plain Node with no dependencies: it runs before `npm ci`.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const withRedis = process.argv.includes('--with-redis');

installNpmDependencies();
installSystemDependencies();

function installNpmDependencies() {
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(lock)) {
    if (npmTreeOlderThan(lock)) {
      run('npm', ['ci']);
    }
  } else if (!existsSync(join(ROOT, 'node_modules'))) {
    run('npm', ['install']);
  }
}

// npm rewrites node_modules/.package-lock.json on every install, just after package-lock.json.
function npmTreeOlderThan(lock) {
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  return !existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs;
}

function installSystemDependencies() {
  const missing = missingDebianPackages();
  if (missing.length === 0) {
    return;
  }
  const install = ['apt-get', 'install', '-y', ...missing];
  if (process.getuid?.() !== 0) {
    console.error(`Missing system packages. Run as root: apt-get update && ${install.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian packages: ${missing.join(' ')}`);
  run('apt-get', ['update']);
  run(install[0], install.slice(1), { DEBIAN_FRONTEND: 'noninteractive' });
}

function missingDebianPackages() {
  const checks = [
    [isExecutable('/usr/bin/chromium'), 'chromium'],
    [isExecutable('/usr/bin/chromedriver'), 'chromium-driver'],
    [isOnPath('java'), 'openjdk-17-jre-headless'],
  ];
  if (process.getuid?.() === 0) {
    // As root, the embedded Grid runs its browsers as an unprivileged user and fences them off
    // this host's ports with an nftables table (src/grid/embedded.ts).
    checks.push([isExecutable('/usr/sbin/nft'), 'nftables']);
  }
  if (withRedis) {
    checks.push([isOnPath('redis-server'), 'redis-server']);
  }
  return checks.filter(([present]) => !present).map(([, debianPackage]) => debianPackage);
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
    console.error(`\`${command} ${args.join(' ')}\` failed (${result.error?.message ?? `exit code ${result.status}`}).`);
    process.exit(result.status ?? 1);
  }
}
