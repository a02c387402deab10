#!/usr/bin/env node
// `npm run setup` in a clone: the npm dependencies (plain Node, before any is installed), then
// the same `selenium-flow setup` an installed package runs (src/embedded-grid/setup.ts) for the rest.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

installNpmDependencies();
const setup = ['--import', 'tsx', join(ROOT, 'src', 'cli.ts'), 'setup', ...process.argv.slice(2)];
process.exit(run(process.execPath, setup, false));

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

function run(command, args, exitOnFailure = true) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0 && exitOnFailure) {
    console.error(
      `\`${command} ${args.join(' ')}\` failed (${result.error?.message ?? `exit code ${result.status}`}).`,
    );
    process.exit(result.status ?? 1);
  }
  return result.status ?? 1;
}
