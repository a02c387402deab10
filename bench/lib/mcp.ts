import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { countTokens } from 'gpt-tokenizer';
import { callTool, type CallDeps } from '../../src/capabilities/call/call.js';
import { capabilityNamed } from '../../src/capabilities/index.js';
import { answerText } from '../../src/mcp/answer-text.js';
import type { Caller } from '../../src/workspace/caller.js';
import { processTree, stopProcesses } from './processes.js';
import { ToolFailed, type ToolAnswer, type ToolCaller } from './tools-task.js';

/**
 * The official client, speaking 2026-07-28. Its default is `legacy` (the 2025-11-25
 * handshake), so the era is pinned: a server that cannot speak it fails loudly.
 */
export const PROTOCOL = '2026-07-28';
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * `legacy`: the 2025-11-25 handshake (`initialize`), what desktop clients speak; the cold rows
 * use it (bench/lib/cold-task.ts).
 */
export type Era = 'pinned' | 'legacy';

export function newClient(name: string, era: Era = 'pinned'): Client {
  return new Client(
    { name, version: '1.0.0' },
    era === 'pinned' ? { versionNegotiation: { mode: { pin: PROTOCOL } } } : {},
  );
}

interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
}

export class McpToolCaller implements ToolCaller {
  constructor(readonly client: Client) {}

  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const result = (await this.client.callTool({ name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content?: ContentBlock[];
    };
    const content = result.content ?? [];
    const text = content.filter((c) => c.type === 'text').map((c) => c.text ?? '');
    if (result.isError === true) {
      throw new ToolFailed(`${name} failed: ${text.join(' ')}`);
    }
    const image = content.find((c) => c.type === 'image')?.data;
    return {
      structured: result.structuredContent ?? {},
      textBytes: text.reduce((sum, t) => sum + Buffer.byteLength(t), 0),
      textTokens: text.reduce((sum, t) => sum + countTokens(t), 0),
      image: image === undefined ? undefined : Buffer.from(image, 'base64'),
    };
  }
}

export async function connectHttp(
  baseUrl: string,
  workspace: string | undefined,
  name = 'bench-http',
  era: Era = 'pinned',
): Promise<Client> {
  const url = new URL(`${baseUrl}/mcp`);
  if (workspace !== undefined) {
    url.searchParams.set('workspace', workspace);
  }
  const client = newClient(name, era);
  await client.connect(new StreamableHTTPClientTransport(url), { timeout: REQUEST_TIMEOUT_MS });
  return client;
}

export interface StdioServer {
  client: Client;
  pid: number;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * A stdio server as a desktop client starts one: a child process whose stdin/stdout carry MCP.
 * `close()` ends stdin (the server exits on it), then makes sure the whole process tree
 * (npx → tsx → node) is gone, by pid.
 */
export async function connectStdio(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  era: Era = 'pinned',
  /** every line the server writes to stderr, as it comes */
  onStderr?: (line: string) => void,
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  const lines: string[] = [];
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const cut = text.lastIndexOf('\n') + 1;
    partial = text.slice(cut);
    const added = text.slice(0, cut).split('\n').filter(Boolean);
    added.forEach((line) => onStderr?.(line));
    lines.push(...added);
    lines.splice(0, Math.max(0, lines.length - 30));
  });
  const client = newClient('bench-stdio', era);
  let tree: number[] = [];
  const close = async () => {
    tree = [...new Set([...tree, ...(transport.pid === null ? [] : processTree(transport.pid))])];
    await client.close().catch(() => undefined);
    await stopProcesses(tree);
  };
  try {
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  } catch (err) {
    await close();
    // What the server printed before it died says why; it is flushed by the time it has exited.
    throw new Error(
      `The stdio server (${command} ${args.join(' ')}) did not answer: ${err instanceof Error ? err.message : String(err)}\n${lines.join('\n')}`,
    );
  }
  const pid = transport.pid ?? -1;
  tree = processTree(pid);
  return { client, pid, stderr: () => lines.join('\n'), close };
}

/**
 * The same call path without MCP or HTTP: the server's own `callTool`, in process. A
 * diagnostic row: the gap between it and the raw script is our call path; the gap between it
 * and the MCP rows is the protocol hop.
 */
export class DirectToolCaller implements ToolCaller {
  constructor(
    private readonly deps: CallDeps,
    private readonly caller: Caller,
  ) {}

  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const capability = capabilityNamed(name);
    if (!capability) {
      throw new ToolFailed(`no tool ${name}`);
    }
    const result = await callTool(this.deps, capability, args, this.caller);
    const image = capability.image?.(result);
    const { data: _data, ...structured } = result;
    const shown = image ? structured : result;
    return {
      structured: shown,
      textBytes: Buffer.byteLength(answerText(capability, shown)),
      textTokens: countTokens(answerText(capability, shown)),
      image: image ? Buffer.from(image.data, 'base64') : undefined,
    };
  }
}
