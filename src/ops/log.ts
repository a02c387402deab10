import { pino, type LoggerOptions } from 'pino';

/**
 * Readable lines for a person at a terminal, JSON lines for everything else (a collector, a
 * file, a test). pino-pretty runs in pino's worker thread, off the request path.
 */
export function prettyInTerminal(stream: { isTTY?: boolean }): Pick<LoggerOptions, 'transport'> {
  return stream.isTTY
    ? { transport: { target: 'pino-pretty', options: { destination: stream === process.stderr ? 2 : 1 } } }
    : {};
}

const stderrLoggers = new Map<string, pino.Logger>();

/** The logger of a process whose stdout is taken (stdio's protocol channel): one per level. */
export function stderrLogger(level: string): pino.Logger {
  let logger = stderrLoggers.get(level);
  if (!logger) {
    const pretty = prettyInTerminal(process.stderr);
    logger = pretty.transport ? pino({ level, ...pretty }) : pino({ level }, pino.destination(2));
    stderrLoggers.set(level, logger);
  }
  return logger;
}
