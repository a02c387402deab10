import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { sharedGridEnv } from '../helpers/server.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'clients-test-token-0123456789';

/** What a client set-up says to start or reach. */
type Launch =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string; headers: Record<string, string> };

/** The code blocks of the README's "Connect your client" section, each with the client it is for. */
async function readmeSnippets(): Promise<{ client: string; lang: string; text: string }[]> {
  const readme = await readFile(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('## Connect your client');
  expect(start).toBeGreaterThan(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const snippets: { client: string; lang: string; text: string }[] = [];
  let client = '';
  for (const part of section.split(/^```/m).map((p, i) => [p, i] as const)) {
    const [text, index] = part;
    if (index % 2 === 0) {
      client = /\*\*([^*]+)\*\*[^*]*$/.exec(text)?.[1] ?? client;
    } else {
      const [lang = '', ...body] = text.split('\n');
      snippets.push({ client, lang, text: body.join('\n') });
    }
  }
  return snippets;
}

/** One `claude mcp add …` line as Claude Code reads it. */
function claudeLine(line: string): Launch {
  const words = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  expect(words.slice(0, 2)).toEqual(['claude', 'mcp']);
  if (words[2] === 'add-json') {
    return serverEntry(JSON.parse(words[4] ?? '{}') as Record<string, unknown>);
  }
  expect(words[2]).toBe('add');
  const dashes = words.indexOf('--');
  if (dashes >= 0) {
    return { kind: 'stdio', command: words[dashes + 1] ?? '', args: words.slice(dashes + 2) };
  }
  expect(words[words.indexOf('--transport') + 1]).toBe('http');
  // The name comes right after the options that take one value, before the URL.
  expect(words[words.indexOf('--transport') + 2]).toBe('selenium-flow');
  const header = words[words.indexOf('--header') + 1] ?? '';
  const url = words.find((w) => w.startsWith('http://')) ?? '';
  return { kind: 'http', url, headers: header ? { [header.split(': ')[0]!]: header.split(': ')[1]! } : {} };
}

/**
 * One server entry, in any of the clients' shapes: `command` + `args` (most), `command` as an
 * array (opencode), `cmd` (Goose); `url`, `serverUrl` (Windsurf), `httpUrl` (Gemini CLI), `uri`
 * (Goose); headers, or Codex's `bearer_token_env_var` naming the variable that holds the token.
 */
function serverEntry(server: Record<string, unknown>): Launch {
  const command = server.command ?? server.cmd;
  if (Array.isArray(command)) {
    return { kind: 'stdio', command: String(command[0]), args: command.slice(1).map(String) };
  }
  if (typeof command === 'string') {
    return { kind: 'stdio', command, args: (server.args as string[] | undefined) ?? [] };
  }
  const url = server.url ?? server.serverUrl ?? server.httpUrl ?? server.uri;
  expect(typeof url, JSON.stringify(server)).toBe('string');
  const headers = (server.headers ?? {}) as Record<string, string>;
  if (server.bearer_token_env_var === 'MCP_AUTH_TOKEN') {
    headers.Authorization = 'Bearer <MCP_AUTH_TOKEN>';
  }
  return { kind: 'http', url: url as string, headers };
}

/**
 * Codex's TOML as it stands in the README: `[table]` headers and `key = value` lines whose values
 * (basic strings, arrays of them) are written as JSON writes them.
 */
function tomlTables(text: string): Record<string, Record<string, unknown>> {
  const tables: Record<string, Record<string, unknown>> = {};
  let table: Record<string, unknown> = {};
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) {
      tables[header[1]!] = table = {};
      continue;
    }
    const [key = '', ...value] = line.split('=');
    table[key.trim()] = JSON.parse(value.join('=').trim());
  }
  return tables;
}

/** Every server a snippet sets up, as its client reads it. */
function launchesOf(lang: string, text: string): Launch[] {
  if (lang === 'sh') {
    return text
      .split('\n')
      .filter((l) => l.startsWith('claude '))
      .map(claudeLine);
  }
  if (lang === 'toml') {
    return Object.values(tomlTables(text)).map(serverEntry);
  }
  const config = (lang === 'yaml' ? parseYaml(text) : JSON.parse(text)) as Record<string, unknown>;
  const servers = (config.mcpServers ?? config.servers ?? config.mcp ?? config.extensions) as Record<
    string,
    Record<string, unknown>
  >;
  return Object.values(servers).map(serverEntry);
}

async function listToolsOver(launch: Launch, env: Record<string, string>, base: string): Promise<string[]> {
  const client = new Client({ name: 'readme-snippet', version: '1.0.0' });
  if (launch.kind === 'stdio') {
    await client.connect(new StdioClientTransport({ ...launch, env, stderr: 'pipe' }));
  } else {
    // The snippet's URL with the test server's port (8080 may be taken here), the placeholder filled in.
    const url = new URL(launch.url);
    expect(url.pathname).toBe('/mcp');
    // Every HTTP line names a workspace, so a second conversation finds the first one's browser.
    expect(url.searchParams.get('workspace'), launch.url).toBe('default');
    const headers = Object.fromEntries(
      Object.entries(launch.headers).map(([k, v]) => [
        k,
        v.replace('<MCP_AUTH_TOKEN>', TOKEN).replace('${input:selenium-flow-token}', TOKEN),
      ]),
    );
    expect(headers.Authorization ?? `Bearer ${TOKEN}`).toBe(`Bearer ${TOKEN}`);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp${url.search}`), { requestInit: { headers } }),
    );
  }
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('the README client set-ups and the one serve prints', () => {
  let replica: Replica;
  let shims: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    replica = await spawnReplica({ GRID_URL: inject('gridUrl'), MCP_AUTH_TOKEN: TOKEN });
    // `selenium-flow` on the PATH, as `npm install -g` puts it there, running this clone.
    shims = await mkdtemp(join(tmpdir(), 'selenium-flow-clients-'));
    const shim = join(shims, 'selenium-flow');
    await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${REPO}src/cli.ts" "$@"\n`);
    await chmod(shim, 0o755);
    env = {
      ...(process.env as Record<string, string>),
      PATH: `${shims}:${process.env.PATH ?? ''}`,
      ...sharedGridEnv(),
      NODE_OPTIONS: '',
    };
  });
  afterAll(async () => {
    await replica?.kill('SIGTERM');
    await rm(shims, { recursive: true, force: true });
  });

  it('has a stdio and an HTTP set-up for each client, and each one lists the tools', async () => {
    const snippets = await readmeSnippets();
    const clients = new Map<string, Set<string>>();
    for (const { client, lang, text } of snippets) {
      for (const launch of launchesOf(lang, text)) {
        clients.set(client, (clients.get(client) ?? new Set()).add(launch.kind));
        expect(await listToolsOver(launch, env, replica.url), `${client} ${launch.kind}`).toContain('navigate');
      }
    }
    expect([...clients.keys()].map((c) => c.split(' ')[0])).toEqual([
      'Claude',
      'Claude',
      'VS',
      'Cursor',
      'Windsurf',
      'Cline',
      'Codex',
      'Gemini',
      'Goose',
      'opencode',
    ]);
    for (const [client, kinds] of clients) {
      // Claude Desktop adds a remote server in its Connectors settings, not in its config file.
      expect([...kinds].sort(), client).toEqual(client === 'Claude Desktop' ? ['stdio'] : ['http', 'stdio']);
    }
  }, 180_000);

  it('serve prints set-ups that reach it, with a placeholder and never the token', async () => {
    const printed = replica.output();
    expect(printed).not.toContain(TOKEN);
    const claude = /Claude Code: (.+)/.exec(printed)?.[1] ?? '';
    const json = /\(mcp\.json\): (.+)/.exec(printed)?.[1] ?? '';
    for (const launch of [...launchesOf('sh', claude), ...launchesOf('json', json)]) {
      expect(launch).toMatchObject({ kind: 'http', url: `${replica.url}/mcp?workspace=default` });
      expect(await listToolsOver(launch, env, replica.url)).toContain('navigate');
    }
  });
});
