import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { yaml } from '../lazy.js';
import { ConfigError } from '../config.js';
import { Forbidden } from '../errors.js';
import { globMatches } from '../glob.js';

/**
 * Who is asking, as far as the bearer token says: the one MCP_AUTH_TOKEN (every workspace), an
 * entry of TOKENS_FILE (the workspaces it names), or nobody when no token is configured. `id`
 * owns the stateless browsers it opens and counts against BROWSERS_PER_CALLER; it is never a token.
 */
export interface Principal {
  id: string;
  /** globs of the workspaces it may name; undefined: any */
  workspaces?: string[];
  /**
   * an MCP host holds this token for a person, and no agent sees it (TOKENS_FILE `control: true`):
   * the host's live app may take Control with it where CONTROL_BY=apps
   */
  hostHeld?: true;
  /** who it is in a refusal ("This sign-in (subject …)"); default: its TOKENS_FILE entry */
  label?: string;
  /** why it may name no workspace at all, when `workspaces` is empty */
  noWorkspace?: string;
  /** an operator's access token (OAUTH_ADMIN_SCOPE) without the agents' scope: a person's, as the admin page's sign-in is */
  person?: true;
}

export const MAIN_PRINCIPAL: Principal = { id: 'main' };
export const ANONYMOUS: Principal = { id: 'anonymous' };

interface Entry {
  name: string;
  digest: Buffer;
  workspaces: string[];
  control: boolean;
}

const LIMITS = { entries: 1000, globs: 100, fileBytes: 1024 * 1024 };
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const GLOB = /^[A-Za-z0-9._*-]{1,64}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The bearer tokens a request may carry, and what each may use. Every token is compared as its
 * SHA-256, in constant time, so a file may hold digests only (sha256: …) and never the tokens.
 */
export class TokenBook {
  private constructor(
    private readonly main: Buffer | undefined,
    private readonly entries: Entry[],
  ) {}

  static from(mainToken: string | undefined, tokensFile: string | undefined): TokenBook {
    return new TokenBook(
      mainToken === undefined ? undefined : digestOf(mainToken),
      tokensFile ? readTokensFile(tokensFile) : [],
    );
  }

  /** No token configured at all: loopback only, everyone is the same anonymous caller. */
  get open(): boolean {
    return this.main === undefined && this.entries.length === 0;
  }

  /** Whether agents may hold this token: it is MCP_AUTH_TOKEN or one of TOKENS_FILE. */
  isAgentToken(token: string): boolean {
    return !this.open && this.principalOf(token) !== undefined;
  }

  /** The principal a bearer token stands for; undefined for a missing or unknown one. */
  principalOf(token: string | undefined): Principal | undefined {
    if (this.open) {
      return ANONYMOUS;
    }
    if (!token) {
      return undefined;
    }
    const digest = digestOf(token);
    if (this.main && timingSafeEqual(digest, this.main)) {
      return MAIN_PRINCIPAL;
    }
    // Every entry is compared, so the time taken says nothing about which one matched.
    let found: Entry | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.digest)) {
        found = entry;
      }
    }
    return (
      found && { id: `token:${found.name}`, workspaces: found.workspaces, ...(found.control ? { hostHeld: true } : {}) }
    );
  }
}

/** A 403 naming the rule, when a principal may not use the workspace it named. */
export function checkWorkspaceAllowed(principal: Principal | undefined, workspace: string): void {
  const globs = principal?.workspaces;
  if (globs && !globs.some((glob) => globMatches(glob, workspace))) {
    const who = principal.label ?? `This token (${principal.id} in TOKENS_FILE)`;
    throw new Forbidden(
      globs.length === 0
        ? `${who} may use no workspace: ${principal.noWorkspace ?? 'its entry lists none'}.`
        : `${who} may not use workspace "${workspace}"; it may use workspaces matching ${globs.join(', ')}: name one of those.`,
    );
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Reads and checks TOKENS_FILE. Any fault stops the boot naming the file and the entry (its
 * number and name, or the YAML line), never quoting a token.
 */
export function readTokensFile(path: string): Entry[] {
  const fail: Fail = (where, rule) =>
    new ConfigError(`TOKENS_FILE (--tokens-file) ${path}: ${where}${rule}; fix the file and start again.`);
  const seen = { names: new Set<string>(), digests: new Set<string>() };
  return entriesIn(path, fail).map((raw, index) => entryOf(raw, `entry ${index + 1}`, seen, fail));
}

type Fail = (where: string, rule: string) => ConfigError;

/** The file's list of entries, each not yet read. */
function entriesIn(path: string, fail: Fail): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : 'error';
    throw fail('', `cannot be read (${code})`);
  }
  if (text.length > LIMITS.fileBytes) {
    throw fail('', `is larger than ${LIMITS.fileBytes} bytes`);
  }
  // YAML reads JSON too. Its own messages quote the source line, which may hold a token: only its position is said.
  const document = yaml().parseDocument(text, { uniqueKeys: true });
  const syntax = document.errors[0];
  if (syntax) {
    throw fail(syntax.linePos ? `line ${syntax.linePos[0].line}: ` : '', 'is not valid YAML or JSON');
  }
  let root: unknown;
  try {
    root = document.toJS({ maxAliasCount: 0 });
  } catch {
    throw fail('', 'uses YAML aliases; write each entry out in full');
  }
  const list = isRecord(root) ? root.tokens : undefined;
  if (!Array.isArray(list) || list.length === 0 || list.length > LIMITS.entries) {
    throw fail(
      '',
      `must be an object with "tokens": a list of 1 to ${LIMITS.entries} entries {name, token or sha256, workspaces}`,
    );
  }
  return list;
}

/** One entry, checked against the rules and against the entries before it (`seen`). */
function entryOf(
  raw: unknown,
  at: string,
  { names, digests }: { names: Set<string>; digests: Set<string> },
  fail: Fail,
): Entry {
  if (!isRecord(raw)) {
    throw fail(`${at}: `, 'must be an object {name, token or sha256, workspaces}');
  }
  const unknown = Object.keys(raw).filter((k) => !['name', 'token', 'sha256', 'workspaces', 'control'].includes(k));
  if (unknown.length > 0) {
    throw fail(
      `${at}: `,
      `unknown field ${JSON.stringify(unknown[0]?.slice(0, 40))} (the fields are name, token, sha256, workspaces, control)`,
    );
  }
  const { name, token, sha256, workspaces, control = false } = raw;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw fail(`${at}: `, 'name must be 1-64 letters, digits, ".", "_" or "-" (it labels the token in messages)');
  }
  const where = `${at} (${name}): `;
  if (names.has(name)) {
    throw fail(where, 'another entry has the same name');
  }
  names.add(name);
  if ((token === undefined) === (sha256 === undefined)) {
    throw fail(where, 'needs exactly one of token (the token itself) or sha256 (its SHA-256, 64 hex digits)');
  }
  if (token !== undefined && (typeof token !== 'string' || token.length < 16)) {
    throw fail(where, 'token must be a string of at least 16 characters');
  }
  if (sha256 !== undefined && (typeof sha256 !== 'string' || !SHA256.test(sha256.toLowerCase()))) {
    throw fail(where, 'sha256 must be 64 hex digits (sha256sum of the token, without a newline)');
  }
  const digest = typeof token === 'string' ? digestOf(token) : Buffer.from(String(sha256).toLowerCase(), 'hex');
  if (digests.has(digest.toString('hex'))) {
    throw fail(where, 'holds the same token as an earlier entry');
  }
  digests.add(digest.toString('hex'));
  if (
    !Array.isArray(workspaces) ||
    workspaces.length === 0 ||
    workspaces.length > LIMITS.globs ||
    !workspaces.every((w): w is string => typeof w === 'string' && GLOB.test(w))
  ) {
    throw fail(
      where,
      `workspaces must list 1 to ${LIMITS.globs} workspace names or globs (letters, digits, ".", "_", "-", and * for any run)`,
    );
  }
  if (typeof control !== 'boolean') {
    throw fail(
      where,
      'control must be true or false (true: an MCP host holds this token for a person, see CONTROL_BY)',
    );
  }
  return { name, digest, workspaces, control };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
