import { defaultOf, flagOf, SETTINGS, usedBy, type Command, type Setting } from '../src/settings.js';

/** The README's settings table lives between these lines; everything else in it is hand-written. */
const BEGIN = '<!-- settings: generated from SETTINGS (src/settings.ts) by `npm run gen`; edit them there -->';
const END = '<!-- /settings -->';

/** A setting's default as the table shows it: a value as code, a default in words as words. */
function shownDefault(s: Setting<unknown>): string {
  const shown = defaultOf(s);
  if (shown === undefined) {
    return 'unset';
  }
  if ('text' in shown) {
    return cell(shown.text);
  }
  return typeof shown.value === 'number' ? String(shown.value) : `\`${String(shown.value)}\``;
}

/** Pipes would break the table; help texts use `|` for alternatives. */
const cell = (text: string) => text.replaceAll('|', '\\|');

const COMMANDS: readonly Command[] = ['serve', 'stdio', 'grid', 'doctor', 'setup'];

export function settingsTable(): string {
  const rows = Object.values(SETTINGS).map((s) => {
    const readBy = COMMANDS.filter((command) => usedBy(s, command)).join(', ');
    return `| \`${s.env}\` | \`--${flagOf(s)}\` | ${shownDefault(s)} | ${readBy} | ${cell(s.help)} |`;
  });
  return ['| env | flag | default | read by | meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** `readme` with its settings table rendered anew; a README without the markers is a bug here. */
export function renderReadme(readme: string): string {
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) {
    throw new Error(`README.md lacks the settings table markers (${BEGIN} … ${END}).`);
  }
  return `${readme.slice(0, from + BEGIN.length)}\n\n${settingsTable()}\n\n${readme.slice(to)}`;
}
