/**
 * `${name}` parameters in step arguments. Text only, single pass: what was substituted is
 * never rescanned, `$${` writes a literal `${` (JavaScript template literals), and a name
 * nobody supplied is left as written (`${window.scrollY}` is not a reference at all).
 */
const TOKEN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function referencesIn(value: unknown): Set<string> {
  const names = new Set<string>();
  visitStrings(value, (text) => {
    for (const match of text.matchAll(TOKEN)) {
      if (match[1]) {
        names.add(match[1]);
      }
    }
    return text;
  });
  return names;
}

/** Whether a string holds a reference (so a rule about its final value must wait for the run). */
export function holdsReference(text: string): boolean {
  return [...text.matchAll(TOKEN)].some((m) => m[1] !== undefined);
}

export function substitute<T>(value: T, params: Record<string, unknown>): T {
  return visitStrings(value, (text) =>
    text.replace(TOKEN, (token, name: string | undefined) => {
      if (name === undefined) {
        return '${';
      }
      return Object.hasOwn(params, name) ? String(params[name]) : token;
    }),
  );
}

function visitStrings<T>(value: T, fn: (text: string) => string): T {
  if (typeof value === 'string') {
    return fn(value) as T;
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown) => visitStrings(item, fn)) as T;
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visitStrings(v, fn)])) as T;
  }
  return value;
}
