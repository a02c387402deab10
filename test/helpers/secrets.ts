import { mkdir, mkdtemp, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditLogger } from '../../src/secrets/audit.js';

/** A directory of SECRETS_DIRS: `{secret: {key: content}}`, written as plain files. */
export async function secretsDir(secrets: Record<string, Record<string, string>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-secrets-'));
  for (const [name, keys] of Object.entries(secrets)) {
    await mkdir(join(dir, name));
    for (const [key, content] of Object.entries(keys)) {
      await writeFile(join(dir, name, key), content);
    }
  }
  return dir;
}

/**
 * A secret laid out exactly as a Kubernetes Secret volume projects it: the files live in a
 * timestamped dotted directory, `..data` points at it, and each key is a symlink through
 * `..data`. `rotate` swaps in a new timestamped directory the way the kubelet does.
 */
export async function projectedSecret(
  parent: string,
  name: string,
  keys: Record<string, string>,
): Promise<{ rotate(next: Record<string, string>): Promise<void> }> {
  const dir = join(parent, name);
  await mkdir(dir);
  let generation = 0;
  const writeGeneration = async (values: Record<string, string>) => {
    generation += 1;
    const stamped = `..2026_12_02_10_0${generation}_00.${generation}`;
    await mkdir(join(dir, stamped));
    for (const [key, content] of Object.entries(values)) {
      await writeFile(join(dir, stamped, key), content);
    }
    return stamped;
  };
  const first = await writeGeneration(keys);
  await symlink(first, join(dir, '..data'));
  for (const key of Object.keys(keys)) {
    await symlink(join('..data', key), join(dir, key));
  }
  return {
    rotate: async (next) => {
      const stamped = await writeGeneration(next);
      await symlink(stamped, join(dir, '..data_tmp'));
      await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    },
  };
}

/** A logger that keeps what it is given, for asserting audit events. */
export function capturingLogger(): AuditLogger & {
  lines: { level: 'info' | 'warn'; event: Record<string, unknown>; message: string }[];
} {
  const lines: { level: 'info' | 'warn'; event: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    info: (event, message) => lines.push({ level: 'info', event: event as Record<string, unknown>, message }),
    warn: (event, message) => lines.push({ level: 'warn', event: event as Record<string, unknown>, message }),
  };
}

/**
 * A flow that types the planted `site-login` password into the fixture's login form (which
 * submits it into the page's URL), names a secret no one defines at step 3 (`ghost`), and puts
 * `beforeSubmit` (YAML steps) before the submit: what the leak tests run.
 */
export function plantedLoginFlow(site: string, beforeSubmit = ''): string {
  return `description: types the planted password, then submits it into the URL
steps:
  - tool: navigate
    args: { url: "${site}/login.html" }
  - id: pass
    tool: write
    args: { selector: { css: "#password" }, secret: { name: site-login, key: password } }
  - id: ghost
    tool: write
    args: { selector: { css: "#email" }, secret: { name: no-such-secret, key: token } }
    onError: continue
${beforeSubmit}  - tool: interact
    args: { action: click, selector: { css: "#submit" } }
`;
}
