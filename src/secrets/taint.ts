import { createHmac, randomBytes } from 'node:crypto';

const MAX_SCOPES = 1000;
const MAX_PER_SCOPE = 32;

/**
 * Whether a page's text carries a value that was just typed: the value itself, or as a URL
 * or a form would encode it (a GET form puts a password in the next page's address).
 */
export function carries(text: string, values: readonly string[]): boolean {
  if (text === '') {
    return false;
  }
  const decoded = safeDecode(text.replace(/\+/g, ' '));
  return values.some(
    (v) =>
      v !== '' &&
      (text.includes(v) ||
        text.includes(encodeURIComponent(v)) ||
        text.includes(encodeURIComponent(v).replace(/%20/g, '+')) ||
        decoded.includes(v)),
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
 * Pages found to carry a typed value, remembered per workspace (or browser) so a later call
 * on the same page withholds it too, without keeping the value: only a keyed digest of the
 * page's address or title, under a key that lives in this process's memory alone.
 */
export class TaintedPages {
  private readonly key = randomBytes(32);
  private readonly marks = new Map<string, Set<string>>();

  remember(scope: string, text: string): void {
    let set = this.marks.get(scope);
    if (!set) {
      if (this.marks.size >= MAX_SCOPES) {
        const oldest = this.marks.keys().next().value;
        if (oldest !== undefined) {
          this.marks.delete(oldest);
        }
      }
      set = new Set();
      this.marks.set(scope, set);
    }
    if (set.size >= MAX_PER_SCOPE) {
      const oldest = set.values().next().value;
      if (oldest !== undefined) {
        set.delete(oldest);
      }
    }
    set.add(this.digest(text));
  }

  has(scope: string, text: string): boolean {
    return text !== '' && (this.marks.get(scope)?.has(this.digest(text)) ?? false);
  }

  private digest(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64');
  }
}
