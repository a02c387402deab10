import { BadRequest, InvalidFlow } from '../errors.js';
import { yaml } from '../lazy.js';
import { MAX_DOCUMENT_BYTES } from '../limits.js';

// A flow's YAML text, read within the limits a hostile document meets before any rule of the
// flow's own (its size, its nesting, its aliases), and written from a document sent as JSON.

/** Nesting a flow needs is a handful of levels; the YAML parser recurses (deep `[[[[` overflowed it). */
const MAX_DEPTH = 32;
/** Each alias expands a node again: a few anchors referencing each other make billions (billion laughs). */
const MAX_ALIASES = 100;

/** The flow's YAML as a plain value, or a 400 naming the limit it passes or the line it breaks. */
export function readYamlText(text: string): unknown {
  checkSize(text);
  checkBrackets(text);
  const document = yaml().parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = document.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    throw new InvalidFlow(
      `The flow is not valid YAML${line ? ` (line ${line})` : ''}: ${error.message.split('\n')[0]}; fix the YAML and save again.`,
      line ? { line } : undefined,
    );
  }
  try {
    const parsed: unknown = document.toJS({ maxAliasCount: MAX_ALIASES });
    return parsed;
  } catch (err) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      throw new BadRequest(
        `The flow's YAML expands aliases (*name) more than ${MAX_ALIASES} times; write the values out, or use fewer aliases.`,
      );
    }
    throw new BadRequest(
      `The flow's YAML cannot be read (${err instanceof Error ? err.message.split('\n')[0] : 'unknown'}); fix the YAML and save again.`,
    );
  }
}

function checkSize(text: string): void {
  if (text.length > MAX_DOCUMENT_BYTES || Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) {
    throw new BadRequest(
      `The flow is larger than ${MAX_DOCUMENT_BYTES / 1024} KiB (the document limit); split it into smaller flows.`,
    );
  }
}

const tooDeep = (what = 'The flow') =>
  new BadRequest(`${what} nests deeper than ${MAX_DEPTH} levels (the depth limit); flatten it.`);

/**
 * Unclosed `[` and `{` counted before the parser sees them, since the parser is where the
 * recursion is. Brackets inside quoted text count too: harmless, a real flow never comes close.
 */
function checkBrackets(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH * 2) {
        throw tooDeep();
      }
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
  }
}

/** Without recursion, so a hostile depth cannot overflow the stack that measures it. */
export function checkDepth(value: unknown, what?: string): void {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') {
      continue;
    }
    if (depth > MAX_DEPTH) {
      throw tooDeep(what);
    }
    for (const child of Object.values(item)) {
      stack.push([child, depth + 1]);
    }
  }
}

/** A document sent as JSON is stored as YAML text, the form people edit. */
export function toYamlText(source: string | Record<string, unknown>): string {
  if (typeof source === 'string') {
    checkSize(source);
    return source;
  }
  checkDepth(source);
  checkSize(JSON.stringify(source));
  const text = yaml().stringify(source);
  checkSize(text);
  return text;
}
