import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnReplica, type Replica } from '../helpers/replica.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'clients-test-token-0123456789';

/** What a client set-up says to start or reach. */
type Launch =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string; headers: Record<string, string> };

/** The sh and json blocks of the README's "Client set-up" section, each with the client it is for. */
async function readmeSnippets(): Promise<{ client: string; lang: string; text: string }[]> {
  const readme = await readFile(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('## Client set-up');
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

/** A client's config as the client reads it: `claude mcp add …`, or one of the JSON shapes. */
function launchOf(lang: string, text: string): Launch {
  if (lang === 'sh') {
    const words = [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
    expect(words.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
    const dashes = words.indexOf('--');
    if (dashes >= 0) {
      return { kind: 'stdio', command: words[dashes + 1] ?? '', args: words.slice(dashes + 2) };
    }
    expect(words[words.indexOf('--transport') + 1]).toBe('http');
    const header = words[words.indexOf('--header') + 1] ?? '';
    const url = words.find((w) => w.startsWith('http://')) ?? '';
    return { kind: 'http', url, headers: header ? { [header.split(': ')[0]!]: header.split(': ')[1]! } : {} };
  }
  const config = JSON.parse(text) as Record<string, Record<string, Record<string, unknown>> | undefined>;
  const server = (config.mcpServers ?? config.servers)?.['selenium-flow'] ?? {};
  if (typeof server.command === 'string') {
    return { kind: 'stdio', command: server.command, args: server.args as string[] };
  }
  return {
    kind: 'http',
    url: (server.url ?? server.serverUrl) as string,
    headers: (server.headers ?? {}) as Record<string, string>,
  };
}

async function listToolsOver(launch: Launch, env: Record<string, string>, base: string): Promise<string[]> {
  const client = new Client({ name: 'readme-snippet', version: '1.0.0' });
  if (launch.kind === 'stdio') {
    await client.connect(new StdioClientTransport({ ...launch, env, stderr: 'pipe' }));
  } else {
    // The snippet's URL with the test server's port (8080 may be taken here), the placeholder filled in.
    const url = new URL(launch.url);
    expect(url.pathname).toBe('/mcp');
    const headers = Object.fromEntries(
      Object.entries(launch.headers).map(([k, v]) => [
        k,
        v.replace('<MCP_AUTH_TOKEN>', TOKEN).replace('${input:selenium-flow-token}', TOKEN),
      ]),
    );
    expect(headers.Authorization ?? `Bearer ${TOKEN}`).toBe(`Bearer ${TOKEN}`);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
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
      GRID_URL: inject('gridUrl'),
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
      const launch = launchOf(lang, text);
      clients.set(client, (clients.get(client) ?? new Set()).add(launch.kind));
      expect(await listToolsOver(launch, env, replica.url), `${client} ${launch.kind}`).toContain('navigate');
    }
    expect([...clients.keys()]).toEqual(['Claude Code', 'Claude Desktop', 'VS Code', 'Cursor', 'Windsurf']);
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
    for (const launch of [launchOf('sh', claude), launchOf('json', json)]) {
      expect(launch).toMatchObject({ kind: 'http', url: `${replica.url}/mcp` });
      expect(await listToolsOver(launch, env, replica.url)).toContain('navigate');
    }
  });
});
