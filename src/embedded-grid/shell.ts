/** A word for sh, single-quoted ('\'' for a quote inside). */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
