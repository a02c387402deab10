const MAX_SCOPES = 1000;
const MAX_PER_SCOPE = 32;
// A browser lives at most as long as its workspace record (one hour by default, slid by every
// call); a day without a call means the browser is long gone and so is the reason to hold on.
const IDLE_MS = 24 * 60 * 60 * 1000;
// A page that shows part of a long value (an outline clips labels at 60 characters, a title may
// be cut) still shows too much: any run this long of a typed value is the value.
const PARTIAL_RUN = 12;
// A short value (a PIN, a short password) shown with a quarter of it missing is still mostly
// given away: such values are looked for in runs of three quarters of their length, never
// fewer than this many characters (a shorter run is too common a string to withhold for).
const MIN_PARTIAL_RUN = 5;
// Base64 of a short value has no stable core to look for at an arbitrary offset.
const MIN_BASE64_CORE = 8;

/**
 * Whether a text carries a typed value: the value itself, or as a URL, a form, HTML, JSON or
 * base64 would encode it, or a run of it (PARTIAL_RUN characters of a long value, three
 * quarters of a short one); in any letter case; and also once the text's numeric and basic
 * named character references (&#115; &#x73; &amp;) and its \uXXXX, \u{X} and \xNN escapes are
 * decoded. A page that transforms the value some other way (reverses it, spells it out,
 * encrypts it) is not recognised: see docs/security.md.
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
  // Every needle in lower case, matched against the text in lower case: one pass each, no RegExp.
  const needles = [...new Set([...typed.flatMap(formsOf), ...typed.flatMap(runsOf)].map(lower))];
  const found = (text: string) => {
    const folded = lower(text);
    return needles.some((needle) => folded.includes(needle));
  };
  return (text) => {
    if (text === '') {
      return false;
    }
    if (found(text)) {
      return true;
    }
    // Each decoding is one linear pass; the text is looked at again only when it changed anything.
    const unescaped = unescape(text);
    if (unescaped !== text && found(unescaped)) {
      return true;
    }
    const decoded = safeDecode(text.replace(/\+/g, ' '));
    if (decoded !== text && (found(decoded) || found(unescape(decoded)))) {
      return true;
    }
    return false;
  };
}

function lower(text: string): string {
  return text.toLowerCase();
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

/** The runs of a value that give it away: see PARTIAL_RUN and MIN_PARTIAL_RUN. */
export function runLength(length: number): number {
  return Math.min(PARTIAL_RUN, Math.max(MIN_PARTIAL_RUN, Math.ceil((length * 3) / 4)));
}

function runsOf(value: string): string[] {
  const chars = Array.from(value);
  const size = runLength(chars.length);
  const runs: string[] = [];
  for (let i = 0; chars.length > size && i + size <= chars.length; i++) {
    runs.push(chars.slice(i, i + size).join(''));
  }
  return runs;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The text with character references and escapes decoded, in one pass of one RegExp whose
 * every branch is a fixed prefix and a bounded run of hex or decimal digits (no nesting, so no
 * backtracking to speak of): &#NN; &#xNN; (the ";" optional, as browsers read it), the five
 * named references above, \uXXXX, \u{X…} and \xNN. Anything else is left as it is.
 */
function unescape(text: string): string {
  if (!text.includes('&') && !text.includes('\\')) {
    return text;
  }
  return text.replace(
    /&#[xX]([0-9a-fA-F]{1,6});?|&#([0-9]{1,7});?|&(amp|lt|gt|quot|apos);|\\u([0-9a-fA-F]{4})|\\u\{([0-9a-fA-F]{1,6})\}|\\x([0-9a-fA-F]{2})/g,
    (whole, hex?: string, dec?: string, name?: string, u4?: string, uBraced?: string, x2?: string) => {
      if (name !== undefined) {
        return NAMED[name] ?? whole;
      }
      const code = dec === undefined ? parseInt(hex ?? u4 ?? uBraced ?? x2 ?? '', 16) : parseInt(dec, 10);
      // A lone surrogate from \uD83D\uDE00 is kept as a UTF-16 unit, so the pair joins again.
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    },
  );
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
