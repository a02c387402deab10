import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isKeyName, isSecretName, RESERVED_ALLOWED_URLS, RESERVED_DESCRIPTION } from './names.js';
import { parseAllowedUrls, UNRESTRICTED, unreadableDeclaration, type AllowedUrls } from './origins.js';
import { withoutFinalNewline, type ListedSecret, type SecretSource, type SourceListing } from './source.js';

/**
 * One directory of SECRETS_DIRS: a secret is a directory, a key is a file in it, one level
 * deep — exactly how Kubernetes projects a Secret volume, so a mount and a laptop folder read
 * alike. Dotfiles are skipped (`..data`, `..2026_12_02` are the projection's machinery);
 * symlinks are followed. Anything unreadable is absent, never fatal.
 */
export class FilesystemSource implements SecretSource {
  readonly kind = 'filesystem' as const;

  constructor(readonly location: string) {}

  async list(): Promise<SourceListing> {
    let names: string[];
    try {
      names = await readdir(this.location);
    } catch {
      return { secrets: [], problem: 'the directory cannot be read' };
    }
    const secrets: ListedSecret[] = [];
    for (const name of names.sort()) {
      if (name.startsWith('.') || !isSecretName(name)) {
        continue;
      }
      const secret = await this.readSecret(name);
      if (secret) {
        secrets.push(secret);
      }
    }
    return { secrets };
  }

  async read(secret: ListedSecret, key: string): Promise<string | undefined> {
    if (!isKeyName(key) || key.startsWith('_')) {
      return undefined;
    }
    try {
      return withoutFinalNewline(await readFile(join(secret.location, key), 'utf8'));
    } catch {
      return undefined;
    }
  }

  private async readSecret(name: string): Promise<ListedSecret | undefined> {
    const dir = join(this.location, name);
    let entries: string[];
    try {
      if (!(await stat(dir)).isDirectory()) {
        return undefined;
      }
      entries = await readdir(dir);
    } catch {
      return undefined;
    }
    const keys: string[] = [];
    for (const entry of entries.sort()) {
      if (entry.startsWith('.') || entry.startsWith('_') || !isKeyName(entry)) {
        continue;
      }
      // One level deep: a directory inside a secret is not a nested secret.
      if (await isReadableFile(join(dir, entry))) {
        keys.push(entry);
      }
    }
    const description = await readOptional(join(dir, RESERVED_DESCRIPTION));
    return {
      name,
      keys,
      description: description === undefined ? null : description.trim() || null,
      allowed: await readAllowed(join(dir, RESERVED_ALLOWED_URLS)),
      workspace: null,
      location: dir,
    };
  }
}

async function isReadableFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** No file is no restriction; a file that is there but cannot be read restricts to nowhere. */
async function readAllowed(path: string): Promise<AllowedUrls> {
  try {
    return parseAllowedUrls(await readFile(path, 'utf8'));
  } catch {
    // A dangling symlink reads as ENOENT too, but something is there: fail closed.
    return (await lstat(path).then(
      () => true,
      () => false,
    ))
      ? unreadableDeclaration()
      : UNRESTRICTED;
  }
}
