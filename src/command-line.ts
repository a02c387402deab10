import { parseArgs } from 'node:util';
import { flagOptions, readConfigFile, type ConfigFile } from './config.js';
import type { Command } from './settings.js';

// The command line as typed: which command, its flags and its config file, or a mistake said as one.

const COMMANDS: readonly Command[] = ['serve', 'stdio', 'grid', 'setup', 'doctor'];

/** A mistake in how the command was typed: said on stderr, exit code 2. */
export class UsageError extends Error {}

export interface CommandLine {
  command: Command;
  flags: Record<string, string>;
  nodes?: string;
  withRedis?: boolean;
  file?: ConfigFile;
}

/** The command, its flags and its config file, from argv (and SELENIUM_FLOW_CONFIG). */
export function parseCommandLine(argv: string[]): CommandLine | 'help' | 'version' {
  const first = argv.find((arg) => !arg.startsWith('-'));
  const command = COMMANDS.find((c) => c === first);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        // Only the flags this command reads: --port given to stdio is a mistake, said as one.
        ...flagOptions(command ?? 'serve'),
        ...(command === 'grid' ? { nodes: { type: 'string' } } : {}),
        ...(command === 'setup' ? { 'with-redis': { type: 'boolean' } } : {}),
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    // Node's message suggests `--` for positionals, which no command takes: name the flag only.
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    const flag = /'(?:-\w, )?(-[^' ]*)/.exec(message)?.[1] ?? '';
    const scope = command ? ` for ${command}` : '';
    throw new UsageError(
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown flag ${flag}${scope}`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
          ? `${flag} ${message.includes('argument missing') ? 'needs a value' : 'takes no value'}`
          : `${message.split('\n')[0]}${scope}`,
    );
  }
  const { positionals, values } = parsed;
  if (values.help || values.version) {
    return values.help ? 'help' : 'version';
  }
  if (!command) {
    throw new UsageError(
      first === undefined
        ? `a command is missing: ${COMMANDS.join(', ')}`
        : `unknown command "${first}": use ${COMMANDS.join(', ')}`,
    );
  }
  if (positionals.length > 1) {
    throw new UsageError(`unexpected argument "${positionals[1]}" after ${command}`);
  }
  const flags: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string' && name !== 'nodes' && name !== 'config') {
      flags[name] = value;
    }
  }
  const configPath = values.config ?? (process.env.SELENIUM_FLOW_CONFIG || undefined);
  return {
    command,
    flags,
    nodes: typeof values.nodes === 'string' ? values.nodes : undefined,
    withRedis: values['with-redis'] === true,
    file: configPath === undefined ? undefined : readConfigFile(configPath),
  };
}
