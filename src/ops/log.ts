import type { Logger, LoggerOptions } from 'pino';
import { pino } from '../lazy.js';

/**
 * Readable lines for a person at a terminal, JSON lines for everything else (a collector, a
 * file, a test). pino-pretty runs in pino's worker thread, off the request path.
 */
export function prettyInTerminal(stream: { isTTY?: boolean }): Pick<LoggerOptions, 'transport'> {
  return stream.isTTY
    ? { transport: { target: 'pino-pretty', options: { destination: stream === process.stderr ? 2 : 1 } } }
    : {};
}

const stderrLoggers = new Map<string, Logger>();

/** The logger of a process whose stdout is taken (stdio's protocol channel): one per level. */
export function stderrLogger(level: string): Logger {
  let logger = stderrLoggers.get(level);
  if (!logger) {
    const { pino: create, destination } = pino();
    const pretty = prettyInTerminal(process.stderr);
    logger = pretty.transport ? create({ level, ...pretty }) : create({ level }, destination(2));
    stderrLoggers.set(level, logger);
  }
  return logger;
}

/** What the parts write lines with: a logger's `info` and `warn`. */
export interface LogLines {
  info(line: object, message: string): void;
  warn(line: object, message: string): void;
}

/**
 * stderrLogger's child for one component, made at its first line, not at boot: pino loads
 * with it (src/lazy.ts), and a server that only lists its tools writes none. LOG_LEVEL=silent
 * never loads it.
 */
export function stderrLines(level: string, component: string): LogLines {
  if (level === 'silent') {
    return { info: () => undefined, warn: () => undefined };
  }
  let logger: Logger | undefined;
  const child = () => (logger ??= stderrLogger(level).child({ component }));
  return {
    info: (line, message) => child().info(line, message),
    warn: (line, message) => child().warn(line, message),
  };
}
