import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { yaml } from './lazy.js';
import {
  defaultOf,
  flagOf,
  HTTP_ONLY,
  settingEntries,
  usedBy,
  type Command,
  type Parsed,
  type Setting,
} from './settings.js';

export const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1']);

/** What loadConfig answers: the parsed settings, with the store decided (see resolveStore). */
export type Config = Omit<Parsed, 'sessionStore'> & { sessionStore: 'memory' | 'redis' };

export class ConfigError extends Error {}

/** Where loadConfig reads besides the flags and the environment. */
export interface LoadOptions {
  /** the command being started: only the settings it reads are read and checked (default serve, all) */
  command?: Command;
  /** values from a config file (readConfigFile), below env vars and above defaults */
  file?: ConfigFile;
}

/** A config file's values, by setting, as text for the settings' own schemas. */
export interface ConfigFile {
  path: string;
  values: Partial<Record<string, string>>;
}

const ALIAS_PREFIX = 'SELENIUM_FLOW_';

/** A setting as messages name it: its env var, and the flag it was declared with. */
function nameOf(s: Setting<unknown>): string {
  return s.flag ? `${s.env} (--${s.flag})` : s.env;
}

/**
 * Flag > env var (SELENIUM_FLOW_<NAME> over <NAME>) > config file > default; a bad value stops
 * the boot with a message naming the setting. A setting the command does not read is left at
 * its default, whatever the environment holds (HOST=0.0.0.0 does not concern stdio).
 */
export function loadConfig(
  flags: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv = process.env,
  { command = 'serve', file }: LoadOptions = {},
): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of settingEntries()) {
    const used = usedBy(s, command);
    const fromFile = file?.values[key];
    const raw = used
      ? (flags[flagOf(s)] ??
        emptyToUndefined(env[`${ALIAS_PREFIX}${s.env}`]) ??
        emptyToUndefined(env[s.env]) ??
        fromFile)
      : undefined;
    const parsed = s.schema.safeParse(raw);
    if (!parsed.success) {
      const where = raw !== undefined && raw === fromFile && file ? ` in ${file.path}` : '';
      throw new ConfigError(`${nameOf(s)}${where} ${parsed.error.issues[0]?.message ?? 'is invalid'}.`);
    }
    out[key] = parsed.data;
  }
  const config = resolveStore(out as Parsed);
  checkOAuth(config, command);
  if (
    command === 'serve' &&
    !loopbackHosts.has(config.host) &&
    !config.authToken &&
    !config.tokensFile &&
    !config.oauthIssuer
  ) {
    throw new ConfigError(
      `MCP_AUTH_TOKEN (--auth-token), TOKENS_FILE (--tokens-file) or OAUTH_ISSUER (--oauth-issuer) is required when HOST is ${config.host}: set a token or an issuer, or listen on 127.0.0.1.`,
    );
  }
  const ownPort = config.port;
  if (
    command === 'serve' &&
    config.gridUrl === undefined &&
    config.browserLoopbackPorts.some((r) => r.from <= ownPort && ownPort <= r.to)
  ) {
    // Same origin as the admin page and the API: Origin and Host checks cannot tell them apart.
    throw new ConfigError(
      `BROWSER_LOOPBACK_PORTS opens port ${ownPort}, this server's own, to the browsers: a page could call the server as its own origin; take ${ownPort} out of BROWSER_LOOPBACK_PORTS, or set PORT to another.`,
    );
  }
  return config;
}

/**
 * The OAuth settings hold together or stop the boot: a setting that would be ignored is refused
 * (an operator who set it expects it to act), and tokens need this server's public address,
 * which they name as their audience.
 */
function checkOAuth(config: Config, command: Command): void {
  const orphans = (
    [
      ['OAUTH_CLIENT_ID', config.oauthClientId],
      ['OAUTH_CLIENT_SECRET', config.oauthClientSecret],
      ['OAUTH_ADMIN_CLIENT_ID', config.oauthAdminClientId],
      ['OAUTH_ADMIN_CLIENT_SECRET', config.oauthAdminClientSecret],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (!config.oauthIssuer) {
    const [orphan] = orphans[0] ?? [];
    if (orphan) {
      throw new ConfigError(
        `${orphan} is set but OAUTH_ISSUER (--oauth-issuer) is not: set OAUTH_ISSUER, or unset ${orphan}.`,
      );
    }
    if (config.staticTokens === 'off') {
      throw new ConfigError(
        'STATIC_TOKENS is "off" but OAUTH_ISSUER (--oauth-issuer) is not set, so nothing could sign in: set OAUTH_ISSUER, or STATIC_TOKENS=on.',
      );
    }
    return;
  }
  if ((config.oauthClientId === undefined) !== (config.oauthClientSecret === undefined)) {
    throw new ConfigError(
      'OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET go together (the client this server introspects tokens as): set both, or neither.',
    );
  }
  if (config.oauthAdminClientSecret !== undefined && config.oauthAdminClientId === undefined) {
    throw new ConfigError(
      "OAUTH_ADMIN_CLIENT_SECRET is set without OAUTH_ADMIN_CLIENT_ID: set the admin page's client id too, or unset the secret.",
    );
  }
  if (command !== 'serve') {
    return;
  }
  if (!config.publicUrl) {
    throw new ConfigError(
      'OAUTH_ISSUER needs PUBLIC_URL (--public-url): access tokens name this server by its public address (their audience); set PUBLIC_URL to the address clients use, such as https://selenium-flow.example.com.',
    );
  }
  if (config.staticTokens === 'off') {
    const set = (
      [
        ['MCP_AUTH_TOKEN', config.authToken],
        ['ADMIN_TOKEN', config.adminToken],
        ['TOKENS_FILE', config.tokensFile],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (set) {
      throw new ConfigError(
        `STATIC_TOKENS is "off" but ${set[0]} is set: unset ${set[0]}, or set STATIC_TOKENS=on to take its tokens beside OAuth ones.`,
      );
    }
  }
}

/**
 * A JSON or YAML file of settings, keyed by flag name (grid-url) or env name (GRID_URL). Values
 * become text for the settings' own schemas; a list may be an array.
 */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `--config ${path} cannot be read (${err instanceof Error && 'code' in err ? String(err.code) : 'error'}); name a readable JSON or YAML file.`,
    );
  }
  let document: unknown;
  try {
    // JSON is YAML: one parser reads both.
    document = yaml().parse(text);
  } catch {
    throw new ConfigError(`--config ${path} is neither JSON nor YAML; fix its syntax.`);
  }
  if (document === null || document === undefined) {
    return { path, values: {} };
  }
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new ConfigError(`--config ${path} must hold a mapping of settings, such as \`port: 8080\`.`);
  }
  const byName = new Map<string, [string, Setting<unknown>]>();
  for (const [key, s] of settingEntries()) {
    byName.set(flagOf(s), [key, s]).set(s.env, [key, s]);
  }
  const values: Partial<Record<string, string>> = {};
  for (const [name, value] of Object.entries(document)) {
    const found = byName.get(name);
    if (!found) {
      throw new ConfigError(
        `--config ${path} names an unknown setting "${name}"; use the flag names of \`selenium-flow --help\` (such as grid-url) or their env names.`,
      );
    }
    const [key, s] = found;
    values[key] = fileValue(value, s, path, name);
  }
  return { path, values };
}

function fileValue(value: unknown, s: Setting<unknown>, path: string, name: string): string {
  const scalar = (item: unknown) => ['string', 'number', 'boolean'].includes(typeof item);
  if (scalar(value)) {
    return String(value);
  }
  if (Array.isArray(value) && value.every(scalar)) {
    return value.map(String).join(s.separator ?? ',');
  }
  throw new ConfigError(`--config ${path}: ${name} must be a string, a number or a list of them.`);
}

/** Where serve and stdio keep flows and files when FLOW_DATA_DIR is not set: the XDG data home. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(home, 'selenium-flow');
}

/**
 * A REDIS_URL means Redis unless SESSION_STORE says memory; SESSION_STORE=redis without a URL
 * is refused rather than quietly served from memory (replicas would not share workspaces).
 */
function resolveStore(parsed: Parsed): Config {
  const store = parsed.sessionStore ?? (parsed.redisUrl ? 'redis' : 'memory');
  if (store === 'redis' && !parsed.redisUrl) {
    throw new ConfigError(
      'SESSION_STORE is "redis" but REDIS_URL (--redis-url) is not set: set REDIS_URL, or SESSION_STORE=memory.',
    );
  }
  return { ...parsed, sessionStore: store };
}

function emptyToUndefined(v: string | undefined): string | undefined {
  return v === '' ? undefined : v;
}

/** The parseArgs option table of a command, derived from SETTINGS. */
export function flagOptions(command: Command): Record<string, { type: 'string' }> {
  const options: Record<string, { type: 'string' }> = {};
  for (const [, s] of settingEntries()) {
    if (usedBy(s, command)) {
      options[flagOf(s)] = { type: 'string' };
    }
  }
  return options;
}

export function settingsHelp(): string {
  return settingEntries()
    .map(([, s]) => {
      const only = s.usedBy && s.usedBy !== HTTP_ONLY ? '' : s.usedBy ? ' (serve only)' : '';
      const shown = defaultOf(s);
      const fallback = shown === undefined ? 'unset' : 'text' in shown ? shown.text : String(shown.value);
      return `  --${flagOf(s)}, ${s.env}${only}  default: ${fallback}\n      ${s.help}`;
    })
    .join('\n');
}

/**
 * Where clients reach this server: PUBLIC_URL (else `address`, the one it listens on) and the
 * route prefix. Without either URL it is just the prefix: links relative to the host.
 */
export function publicBase(config: Pick<Config, 'publicUrl' | 'routePrefix'>, address = ''): string {
  return `${(config.publicUrl ?? address).replace(/\/+$/, '')}${config.routePrefix ?? ''}`;
}

/**
 * The server's own files, which no browser's sandbox may show (embedded-grid/sandbox.ts): the
 * tokens file, the secrets, the data directory and the config file, wherever they are.
 */
export function serversFiles(config: Config, file: ConfigFile | undefined): string[] {
  return [config.tokensFile, ...config.secretsDirs, config.dataDir, file?.path]
    .filter((path): path is string => path !== undefined)
    .map((path) => resolve(path));
}
