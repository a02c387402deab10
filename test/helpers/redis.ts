import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../src/embedded-grid/index.js';

/** A real redis-server (Debian's), on a free loopback port, without persistence unless asked; it can be stopped and started again on the same port. */
export interface RunningRedis {
  port: number;
  url: string;
  /** stops it (SIGTERM: connections close at once, as when Redis goes away) */
  stop(): Promise<void>;
  /** starts it again on the same port: empty, or with what it persisted */
  start(): Promise<void>;
  /** freezes it (SIGSTOP): connections stay open, nothing answers */
  pause(): void;
  resume(): void;
}

/** `persistDir`: Redis writes every command to an append-only file there (fsync each), and a restart reads it back. */
export async function startRedis(options: { password?: string; persistDir?: string } = {}): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  const start = async () => {
    const persistence = options.persistDir
      ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.persistDir]
      : ['--appendonly', 'no'];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence];
    if (options.password) {
      args.push('--requirepass', options.password);
    }
    const started = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' });
    child = started;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await delay(50);
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) {
      return;
    }
    const ended = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    await ended;
  };

  await start();
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    start,
    stop: async () => {
      await stop();
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}

/** Any answer to PING (+PONG, or -NOAUTH with a password) means it is listening. */
async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', () => done(true));
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}
