import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { signalGroup } from '../../src/embedded-grid/index.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A `selenium-flow serve` process of its own (a replica), as an operator would run it. */
export interface Replica {
  url: string;
  child: ChildProcess;
  /** what it printed on stderr, for a failing test's message */
  stderr(): string;
  /** everything it printed, stdout and stderr, for a test that greps its log */
  output(): string;
  /** signals its whole process group (SIGKILL: a crash, nothing cleans up) */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node --import tsx src/cli.ts serve --port 0` (or `entry`, e.g. the bench's dist/cli.js)
 * with env, and waits for its banner. No vitest imports: bench/ uses it too.
 */
export async function spawnReplica(
  env: Record<string, string>,
  entry: readonly string[] = ['--import', 'tsx', 'src/cli.ts'],
): Promise<Replica> {
  const child = spawn(process.execPath, [...entry, 'serve', '--port', '0'], {
    cwd: REPO,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      LIVE_VIEW: 'off',
      SE_OFFLINE: 'true',
      SE_AVOID_STATS: 'true',
      // The browser matrix's Firefox pass (vitest.config.ts) opens Firefox here too.
      ...(process.env.TEST_BROWSER ? { DEFAULT_BROWSER: process.env.TEST_BROWSER } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so kill() reaches anything it started.
    detached: true,
  });
  const killOnExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  let errors = '';
  let printed = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4_000);
    printed += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals) => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, signal);
      // A graceful stop waits for calls in flight; past 10 s, stop it anyway.
      const grace = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
      await ended;
      clearTimeout(grace);
    }
  };
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(line);
    if (match?.[1]) {
      // Keep reading so a full pipe never blocks it.
      child.stdout?.resume();
      return { url: match[1], child, stderr: () => errors, output: () => printed, kill };
    }
  }
  await kill('SIGKILL');
  throw new Error(`selenium-flow serve did not start: ${errors}`);
}

/** A load balancer at its simplest: each request goes to the next upstream in turn. */
export interface RoundRobin {
  url: string;
  /** requests sent to each upstream, in the order given */
  counts: number[];
  /** upstream failures seen (a replica that closed a connection, or is down) */
  errors: string[];
  close(): Promise<void>;
}

export async function roundRobinProxy(upstreams: string[]): Promise<RoundRobin> {
  const counts = upstreams.map(() => 0);
  const errors: string[] = [];
  // Keep-alive both ways, like a real load balancer; idle client sockets outlive the client's own idle timeout.
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next % upstreams.length;
    next += 1;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = new URL(req.url ?? '/', upstreams[index]);
    const upstream = request(
      target,
      { agent, method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      errors.push(`${req.method ?? ''} ${target.host}: ${err.message}`);
      if (!res.headersSent) {
        res.writeHead(502);
      }
      res.end();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
