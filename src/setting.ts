import type { z } from 'zod';

/** One setting: its env var, its CLI flag, its default and its rule (a row of SETTINGS, settings.ts). */
export interface Setting<T> {
  env: string;
  /** default: the env name in kebab case (BROWSER_SANDBOX → --browser-sandbox) */
  flag?: string;
  help: string;
  schema: z.ZodType<T>;
  /** the commands that read it (default serve and stdio); another command ignores it */
  usedBy?: readonly Command[];
  /** how a list given as an array in a config file is joined (default ",") */
  separator?: string;
  /** the default in words, where the schema has none to show: computed at boot, or an empty list */
  defaultText?: string;
}

export type Command = 'serve' | 'stdio' | 'grid' | 'doctor' | 'setup';

/** A row of SETTINGS, typed: each area's settings module declares its rows with it. */
export function setting<T>(s: Setting<T>): Setting<T> {
  return s;
}
