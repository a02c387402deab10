const MAX_SCOPES = 1000;
const MAX_PER_SCOPE = 32;
// A browser lives at most as long as its workspace record (one hour by default, slid by every
// call); a day without a call means the browser is long gone and so is the reason to hold on.
const IDLE_MS = 24 * 60 * 60 * 1000;
// A page that shows part of a long value (an outline clips labels at 60 characters, a title may
// be cut) still shows too much: any run this long of a typed value is the value.
const PARTIAL_RUN = 12;
// Base64 of a short value has no stable core to look for at an arbitrary offset.
const MIN_BASE64_CORE = 8;

/**
 * Whether a text carries a typed value: the value itself, or as a URL, a form, HTML, JSON or
 * base64 would encode it, or a run of PARTIAL_RUN characters of it. A page that transforms
 * the value some other way (reverses it, spells it out) is not recognised: see docs/security.md.
 */
export function carries(text: string, values: readonly string[]): boolean {
  return screenFor(values)(text);
}

/** `carries` for one set of values, with their encoded forms worked out once (an answer has many strings). */
export function screenFor(values: readonly string[]): (text: string) => boolean {
  const typed = values.filter((v) => v !== '');
  if (typed.length === 0) {
    return () => false;
  }
  const forms = typed.flatMap(formsOf);
  const runs = typed.flatMap(runsOf);
  return (text) => {
    if (text === '') {
      return false;
    }
    if (forms.some((form) => text.includes(form)) || runs.some((run) => text.includes(run))) {
      return true;
    }
    const decoded = safeDecode(text.replace(/\+/g, ' '));
    return decoded !== text && typed.some((v) => decoded.includes(v));
  };
}

function formsOf(value: string): string[] {
  const url = encodeURIComponent(value);
  const html = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return [value, url, url.replace(/%20/g, '+'), html, JSON.stringify(value).slice(1, -1), ...base64Cores(value)];
}

/**
 * What any base64 text holding the value at any byte offset must contain: the value is
 * encoded at one of three alignments, and only its inner groups are the same whatever
 * surrounds it.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const start = shift === 0 ? 0 : 4;
    const end = (shift + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) {
      cores.push(core);
    }
  }
  return cores;
}

function runsOf(value: string): string[] {
  const runs: string[] = [];
  for (let i = 0; value.length > PARTIAL_RUN && i + PARTIAL_RUN <= value.length; i++) {
    runs.push(value.slice(i, i + PARTIAL_RUN));
  }
  return runs;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The values typed into each browser (by its scope: the workspace, or the stateless
 * browser), held in this process's memory for as long as that browser may show them, so
 * every later answer about it can be screened. Never written to a record, a log or a file.
 * Bounded: the least recently used scope goes first.
 */
export class TypedValues {
  private readonly scopes = new Map<string, { values: string[]; usedAt: number; refs?: Set<string> }>();

  constructor(private readonly now: () => number = Date.now) {}

  remember(scope: string, value: string): void {
    if (value === '') {
      return;
    }
    const entry: { values: string[]; usedAt: number; refs?: Set<string> } = this.touch(scope) ?? {
      values: [],
      usedAt: this.now(),
    };
    if (!entry.values.includes(value)) {
      entry.values.push(value);
      if (entry.values.length > MAX_PER_SCOPE) {
        entry.values.shift();
      }
    }
    this.scopes.set(scope, entry);
    while (this.scopes.size > MAX_SCOPES) {
      const oldest = this.scopes.keys().next().value;
      if (oldest === undefined) {
        break;
      }
      this.scopes.delete(oldest);
    }
  }

  /** The values typed into this scope's browser; an empty list when none (or forgotten). */
  of(scope: string): readonly string[] {
    return this.touch(scope)?.values ?? [];
  }

  /** Whether this scope's value of a secret reference was taken in (typed here, or read for a record). */
  knows(scope: string, ref: string): boolean {
    return this.scopes.get(scope)?.refs?.has(ref) ?? false;
  }

  /** Remembers a value with the reference it came from (bounded with the scope's values). */
  rememberRef(scope: string, ref: string, value: string): void {
    this.remember(scope, value);
    const entry = this.scopes.get(scope);
    if (entry) {
      entry.refs ??= new Set();
      if (entry.refs.size < MAX_PER_SCOPE) {
        entry.refs.add(ref);
      }
    }
  }

  forget(scope: string): void {
    this.scopes.delete(scope);
  }

  private touch(scope: string): { values: string[]; usedAt: number; refs?: Set<string> } | undefined {
    const entry = this.scopes.get(scope);
    if (!entry) {
      return undefined;
    }
    this.scopes.delete(scope);
    if (this.now() - entry.usedAt > IDLE_MS) {
      return undefined;
    }
    entry.usedAt = this.now();
    this.scopes.set(scope, entry);
    return entry;
  }
}
