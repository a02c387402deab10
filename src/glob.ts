/**
 * Glob matching where `*` is any run of characters and nothing else is special, in time linear
 * in the text. Globs come from outside (flow `urls`, a tokens file): a RegExp built from one
 * backtracks exponentially on `*a*a*a…b`, and one such match froze the whole server.
 */
export function globMatches(glob: string, text: string): boolean {
  const parts = glob.split('*');
  if (parts.length === 1) {
    return glob === text;
  }
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) {
    return false;
  }
  // Between the fixed ends, each middle part matched at its leftmost place leaves the most room
  // for the parts after it, so a greedy scan never needs to go back.
  let at = first.length;
  const end = text.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found === -1 || found + part.length > end) {
      return false;
    }
    at = found + part.length;
  }
  return true;
}
