import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface Semver {
  satisfies(version: string, range: string): boolean;
  subset(sub: string, dom: string): boolean;
}
// npm's own range rules, from the copy the tree already holds (a transitive dependency).
const semver = createRequire(import.meta.url)('semver') as Semver;

interface LockedPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(new URL('npm-shrinkwrap.json', root), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const locked = Object.entries(lock.packages).filter(([path]) => path !== '');
const nodeRange = (p: LockedPackage) => (Array.isArray(p.engines) ? undefined : p.engines?.node);

describe('the Node versions the package promises', () => {
  it('every runtime dependency accepts every Node that engines allows (no EBADENGINE for a user)', () => {
    const narrower = locked
      .filter(([, p]) => !p.dev && nodeRange(p) !== undefined)
      .filter(([, p]) => !semver.subset(pkg.engines.node, nodeRange(p) ?? '*'))
      .map(([path, p]) => `${path}@${p.version} wants ${nodeRange(p)}`);
    expect(narrower).toEqual([]);
  });

  it('every package npm ci installs here accepts this Node (no EBADENGINE for npm start or npm test)', () => {
    const refusing = locked
      .filter(([, p]) => nodeRange(p) !== undefined && !semver.satisfies(process.version, nodeRange(p) ?? '*'))
      .map(([path, p]) => `${path}@${p.version} wants ${nodeRange(p)}`);
    expect(refusing).toEqual([]);
  });

  it('pins every runtime dependency exactly, at the version the tests ran', () => {
    const locked = Object.fromEntries(
      Object.keys(pkg.dependencies).map((name) => [name, lock.packages[`node_modules/${name}`]?.version]),
    );
    expect(pkg.dependencies).toEqual(locked);
  });
});
