import { MAX_UPLOAD_BASE64_CHARS, STREAMS_MAX, STREAMS_PER_CALLER, STREAMS_PER_TOKEN } from './limits.js';
import { OAUTH_SETTINGS } from './oauth/settings.js';
import { FENCE_SETTINGS } from './fence-settings.js';
import { QUOTA_SETTINGS } from './quotas/settings.js';
import { SECRETS_SETTINGS } from './secrets/settings.js';
import { LIVE_SETTINGS } from './live/settings.js';
import { TOOL_LIST_SETTINGS } from './mcp/settings.js';
import { z } from 'zod';
import { setting, type Command, type Setting } from './setting.js';

export type { Command, Setting } from './setting.js';
import { BROWSER_KINDS } from './grid/capabilities.js';

export const HTTP_ONLY: readonly Command[] = ['serve'];

const seconds = (min: number) => z.coerce.number().int().min(min);

export function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').flatMap((item) => (item.trim() === '' ? [] : [item.trim()]));
}

function hostList(example: string) {
  return z
    .string()
    .optional()
    .transform((value) => splitList(value).map((host) => host.toLowerCase()))
    .pipe(z.array(z.string().regex(/^[a-z0-9*][a-z0-9.*:[\]-]*$/, `must list ${example}, comma-separated`)));
}

/**
 * Every setting, declared once (an area's rows live with the area and are spread in here).
 * `--help`, the boot validation, the config file and the docs all read this table.
 */
export const SETTINGS = {
  gridUrl: setting({
    env: 'GRID_URL',
    flag: 'grid-url',
    usedBy: ['serve', 'stdio', 'doctor'],
    help: 'the Selenium Grid (hub or standalone). Credentials as userinfo (http://user:password@hub:4444) go as Basic auth',
    defaultText: 'an embedded Grid, started and stopped with the server',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:4444' }).optional(),
  }),
  gridVncPassword: setting({
    env: 'GRID_VNC_PASSWORD',
    usedBy: HTTP_ONLY,
    help: "the Grid nodes' VNC password (docker-selenium's SE_VNC_PASSWORD, secret in its images); the live tunnel answers it, viewers never see it",
    schema: z.string().min(1, 'must not be empty (unset it when the VNC asks no password)').max(256).optional(),
  }),
  browserSandbox: setting({
    env: 'BROWSER_SANDBOX',
    usedBy: ['serve', 'stdio', 'doctor'],
    help: 'on: Chromium keeps its sandbox; off: sends --no-sandbox',
    defaultText: 'on for the embedded Grid, off with GRID_URL',
    schema: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).optional(),
  }),
  ...LIVE_SETTINGS,
  defaultBrowser: setting({
    env: 'DEFAULT_BROWSER',
    help: 'the browser a new workspace opens, chrome or firefox (open_session {browser} overrides it; docs/browsers.md)',
    schema: z.enum(BROWSER_KINDS, { error: 'must be "chrome" or "firefox"' }).default('chrome'),
  }),
  eventsHeartbeat: setting({
    env: 'EVENTS_HEARTBEAT',
    help: 'seconds between the keep-alive comments of the admin events stream (at least 1; docs/admin.md)',
    schema: seconds(1).max(300).default(15),
  }),
  ...FENCE_SETTINGS,
  host: setting({
    env: 'HOST',
    usedBy: HTTP_ONLY,
    flag: 'host',
    help: 'address to listen on',
    schema: z.string().min(1).default('127.0.0.1'),
  }),
  port: setting({
    env: 'PORT',
    usedBy: HTTP_ONLY,
    flag: 'port',
    help: 'port to listen on (0 = any free port)',
    schema: z.coerce.number().int().min(0).max(65535).default(8080),
  }),
  authToken: setting({
    env: 'MCP_AUTH_TOKEN',
    flag: 'auth-token',
    help: 'bearer token for /mcp and the REST API (16 characters or more); this or TOKENS_FILE is required when HOST is not loopback',
    schema: z.string().min(16, 'must be at least 16 characters').optional(),
  }),
  dataDir: setting({
    env: 'FLOW_DATA_DIR',
    flag: 'data-dir',
    help: 'directory for flows, screenshots and Files',
    defaultText: '$XDG_DATA_HOME/selenium-flow, else ~/.local/share/selenium-flow',
    schema: z.string().min(1).optional(),
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    flag: 'redis-url',
    help: 'Redis shared by replicas (redis://[:password@]host:port[/db]); set, it is the store',
    schema: z
      .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379' })
      .optional(),
  }),
  sessionStore: setting({
    env: 'SESSION_STORE',
    help: 'workspace record store: memory | redis',
    defaultText: 'redis when REDIS_URL is set, else memory',
    schema: z.enum(['memory', 'redis'], { error: 'must be "memory" or "redis"' }).optional(),
  }),
  flowRunTimeout: setting({
    env: 'FLOW_RUN_TIMEOUT',
    help: 'seconds a whole flow run may take',
    schema: seconds(1).default(300),
  }),
  callTimeout: setting({
    env: 'CALL_TIMEOUT',
    help: "seconds one tool call may take, on top of the wait it asks for (wait_timeout, assert's timeout); then 504, and a hung page's tab is replaced. New browsers get WebDriver script and page-load timeouts of 80 % of it",
    schema: seconds(2).max(3600).default(60),
  }),
  sessionTtl: setting({
    env: 'SESSION_TTL',
    help: 'seconds a workspace record lives unused',
    schema: seconds(60).default(3600),
  }),
  routePrefix: setting({
    env: 'ROUTE_PREFIX',
    flag: 'route-prefix',
    help: 'mount every route under this path (e.g. /selenium-flow); /health /started /ready /info answer at the root too',
    schema: z
      .string()
      .regex(
        /^(\/[A-Za-z0-9._~-]+)+$/,
        'must be a path such as /selenium-flow: a leading slash, no trailing slash, letters, digits and . _ ~ -',
      )
      .optional(),
  }),
  publicUrl: setting({
    env: 'PUBLIC_URL',
    flag: 'public-url',
    help: 'absolute base URL (scheme://host[:port], without ROUTE_PREFIX) for links this server hands out',
    schema: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).optional(),
  }),
  linkTtl: setting({ env: 'LINK_TTL', help: 'seconds a signed file link works', schema: seconds(10).default(3600) }),
  linkSecret: setting({
    env: 'LINK_SECRET',
    help: 'key for signed file links, the same on every replica',
    defaultText: 'derived from MCP_AUTH_TOKEN, else random at each start',
    schema: z.string().min(16, 'must be at least 16 characters').optional(),
  }),
  adminToken: setting({
    env: 'ADMIN_TOKEN',
    usedBy: HTTP_ONLY,
    flag: 'admin-token',
    help: 'token for the admin API (/admin/api, 16 characters or more); with no token at all the banner prints a one-time admin link',
    defaultText: 'MCP_AUTH_TOKEN',
    schema: z.string().min(16, 'must be at least 16 characters').optional(),
  }),
  adminLinkTtl: setting({
    env: 'ADMIN_LINK_TTL',
    usedBy: HTTP_ONLY,
    help: "seconds the banner's one-time admin link works (printed when no token is set)",
    schema: seconds(1).max(86_400).default(600),
  }),
  allowedHosts: setting({
    env: 'ALLOWED_HOSTS',
    usedBy: HTTP_ONLY,
    flag: 'allowed-hosts',
    help: 'comma-separated host names (a * matches any run of characters) this server answers to, besides loopback, HOST and PUBLIC_URL',
    defaultText: 'none',
    schema: hostList('host names such as selenium-flow.internal or *.example.com'),
  }),
  allowedOrigins: setting({
    env: 'ALLOWED_ORIGINS',
    usedBy: HTTP_ONLY,
    flag: 'allowed-origins',
    help: 'comma-separated origins (scheme://host[:port]) whose pages may call this server, besides its own',
    defaultText: 'none',
    schema: z
      .string()
      .optional()
      .transform((value) => splitList(value))
      .pipe(
        z.array(
          z
            .string()
            .regex(
              /^https?:\/\/[^/\s]+$/,
              'must list origins such as https://agents.example.com (scheme://host[:port], no path)',
            ),
        ),
      ),
  }),
  tokensFile: setting({
    env: 'TOKENS_FILE',
    usedBy: HTTP_ONLY,
    flag: 'tokens-file',
    help: 'YAML or JSON file mapping each bearer token (or its SHA-256) to the workspaces it may use',
    schema: z.string().min(1).optional(),
  }),
  streamsPerToken: setting({
    env: 'STREAMS_PER_TOKEN',
    flag: 'streams-per-token',
    usedBy: HTTP_ONLY,
    help: `MCP notification streams (GET /mcp, subscriptions/listen) one token may hold open on this process across its workspaces (all token-less callers together); a workspace holds ${STREAMS_PER_CALLER}, the process ${STREAMS_MAX}`,
    schema: z.coerce.number().int().min(1).max(STREAMS_MAX).default(STREAMS_PER_TOKEN),
  }),
  ...OAUTH_SETTINGS,
  ...QUOTA_SETTINGS,
  browsersPerCaller: setting({
    env: 'BROWSERS_PER_CALLER',
    flag: 'browsers-per-caller',
    help: 'browsers one caller (one token; all token-less callers together) may hold open at once',
    schema: z.coerce.number().int().min(1).max(1000).default(4),
  }),
  networkCaptureLimit: setting({
    env: 'NETWORK_CAPTURE_LIMIT',
    help: 'requests capture_network keeps per workspace (the newest; older ones are dropped and counted)',
    schema: z.coerce.number().int().min(1).max(10_000).default(200),
  }),
  networkBodyMaxBytes: setting({
    env: 'NETWORK_BODY_MAX_BYTES',
    help: 'the largest response body a capturing browser keeps for network_body, in bytes',
    schema: z.coerce.number().int().min(1024).max(100_000_000).default(5_000_000),
  }),
  gridSlotWait: setting({
    env: 'GRID_SLOT_WAIT',
    flag: 'grid-slot-wait',
    usedBy: ['serve', 'stdio', 'doctor'],
    help: 'seconds an open waits for a free Grid slot before answering 503',
    schema: seconds(1).max(3600).default(30),
  }),
  ...TOOL_LIST_SETTINGS,
  maxBodyBytes: setting({
    env: 'MAX_BODY_BYTES',
    usedBy: HTTP_ONLY,
    help: 'largest request body accepted, in bytes; the default is room for the largest upload, 16 MiB as base64, and its JSON',
    // Room for the largest upload_file content the schema accepts, so an upload over the limit is
    // refused by its argument rule, with the remedy, rather than by the body limit, which an MCP
    // client reports only as a transport failure.
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .default(MAX_UPLOAD_BASE64_CHARS + 1024 * 1024),
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    flag: 'log-level',
    help: 'fatal | error | warn | info | debug | trace | silent',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  }),
  ...SECRETS_SETTINGS,
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
/** Every setting's value after its schema: what the boot reads. */
export type Parsed = { [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never };

/** Every setting with its key, for the code that walks the table (boot, config file, --help). */
export function settingEntries(): [string, Setting<unknown>][] {
  return Object.entries(SETTINGS);
}

/** The flag of a setting: declared, or its env name in kebab case. */
export function flagOf(s: Setting<unknown>): string {
  return s.flag ?? s.env.toLowerCase().replaceAll('_', '-');
}

/**
 * What a setting is when nobody sets it, as `--help` and the README say it: its `defaultText`,
 * else its schema's default value; undefined when it is simply unset.
 */
export function defaultOf(s: Setting<unknown>): { text: string } | { value: unknown } | undefined {
  if (s.defaultText !== undefined) {
    return { text: s.defaultText };
  }
  return s.schema instanceof z.ZodDefault ? { value: s.schema.def.defaultValue } : undefined;
}

/** Whether `command` reads the setting; another command leaves it at its default. */
export function usedBy(s: Setting<unknown>, command: Command): boolean {
  return (s.usedBy ?? ['serve', 'stdio']).includes(command);
}
