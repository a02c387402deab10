import { isJsonObject } from '../json.js';
import type { Capability } from '../capabilities/capability.js';

/**
 * The text block of a tool result, written for a model to read: plain lines, no JSON escaping.
 * One renderer for every row, driven by the row's kind and the answer's shape, never by the
 * tool's name, so a tool added tomorrow reads the same way. Every field of structuredContent
 * appears in it: a client that shows only text loses nothing.
 *
 * - where the browser is (`url` and `title`): `Title — url`
 * - an open dialog, a withheld answer: a sentence each
 * - the one text a read answers (outline, extract's value): the text itself, after the rest
 * - any other field: `name: value`; a list one item a line; a nested object `name.key: value`
 */
export function answerText(capability: Capability, result: Record<string, unknown>): string {
  const { url, title, dialog, withheld, withheld_reason: reason, ...rest } = result;
  const lines: string[] = [];
  if (typeof url === 'string' && typeof title === 'string') {
    lines.push(title ? `${title} — ${url}` : `${url} (no title)`);
  } else {
    Object.assign(rest, definedOnly({ url, title }));
  }
  if (isJsonObject(dialog)) {
    lines.push(`A dialog is open, saying: ${String(dialog.message)} — answer it with the dialog tool.`);
  }
  if (withheld === true) {
    lines.push(`Withheld: ${typeof reason === 'string' ? reason : 'part of this answer carried a typed secret'}`);
  }
  const body = capability.kind === 'read' ? bodyOf(rest) : undefined;
  for (const [key, value] of Object.entries(rest)) {
    if (key !== body?.key) {
      lines.push(...fieldLines(key, value));
    }
  }
  if (body) {
    if (lines.length > 0) {
      lines.push('');
    }
    lines.push(...(Array.isArray(body.value) ? body.value.map(listItem) : [scalar(body.value)]));
  }
  return lines.join('\n');
}

/** A read's one text (or list of texts, or null) beside flags, shown bare: it is what was asked for. */
function bodyOf(rest: Record<string, unknown>): { key: string; value: unknown } | undefined {
  const entries = Object.entries(rest).filter(([, v]) => v !== undefined && typeof v !== 'boolean');
  const [only] = entries;
  if (entries.length !== 1 || !only) {
    return undefined;
  }
  const [key, value] = only;
  const isText = typeof value === 'string' || value === null;
  const isTexts = Array.isArray(value) && value.every((v) => typeof v === 'string' || v === null);
  return isText || isTexts ? { key, value } : undefined;
}

function fieldLines(key: string, value: unknown): string[] {
  if (value === undefined) {
    return [];
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? [`${key}: none`] : [`${key}:`, ...value.map(listItem)];
  }
  if (isJsonObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? [`${key}: none`] : entries.flatMap(([k, v]) => fieldLines(`${key}.${k}`, v));
  }
  return [`${key}: ${scalar(value)}`];
}

/** A list item on one line: an object as `key: value; key: value`, a text with its lines indented. */
function listItem(item: unknown): string {
  if (isJsonObject(item)) {
    const parts = Object.entries(item)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${isJsonObject(v) || Array.isArray(v) ? JSON.stringify(v) : scalar(v)}`);
    return `- ${parts.join('; ')}`;
  }
  return `- ${Array.isArray(item) ? JSON.stringify(item) : scalar(item).replace(/\n/g, '\n  ')}`;
}

function scalar(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function definedOnly(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}
