import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { settingsHelp } from '../../src/config.js';
import { flagOf, settingEntries } from '../../src/settings.js';

/** Each setting's first line in --help: `  --flag, ENV[ (serve only)]  default: …`. */
function helpLines(): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of settingsHelp().split('\n')) {
    const flag = /^ {2}--([a-z0-9-]+), /.exec(line)?.[1];
    if (flag !== undefined) {
      lines.set(flag, line);
    }
  }
  return lines;
}

describe('--help', () => {
  it("shows every setting's default, or says it is unset", () => {
    const lines = helpLines();
    expect(lines.size).toBe(settingEntries().length);
    for (const [key, s] of settingEntries()) {
      const shown = / {2}default: (.+)$/.exec(lines.get(flagOf(s)) ?? '')?.[1];
      expect(shown, key).toBeDefined();
      if (s.schema instanceof z.ZodDefault) {
        // The schema's own default, so the help cannot fall behind it.
        expect(shown, key).toBe(String(s.schema.def.defaultValue));
      } else if (s.schema.safeParse(undefined).data !== undefined) {
        // Unset, it still has a value (an empty list): say what that is, not "unset".
        expect(shown, key).not.toBe('unset');
      }
    }
  });

  it('says a default computed at boot in words, once: in the default, not again in the help text', () => {
    const lines = settingsHelp().split('\n');
    expect(lines.find((l) => l.includes('--browser-sandbox, BROWSER_SANDBOX'))).toMatch(
      /default: on for the embedded Grid, off with GRID_URL$/,
    );
    for (const [key, s] of settingEntries()) {
      expect(s.help, key).not.toMatch(/\(default\b|\bdefault:|; default\b/);
    }
  });
});
