export interface Summary {
  min: number;
  median: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) {
    return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { min: sorted[0] ?? Number.NaN, median, max: sorted[sorted.length - 1] ?? Number.NaN };
}

export function median(values: readonly number[]): number {
  return summarize(values).median;
}

export const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : '–');
export const ms1 = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '–');
export const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
export const bytes = (value: number): string => (Number.isFinite(value) ? value.toLocaleString('en-US') : '–');
export const triple = (s: Summary, format = ms): string =>
  `${format(s.min)} / **${format(s.median)}** / ${format(s.max)}`;

/** A Markdown table, so what the bench prints can go into docs/performance.md as it is. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly ('l' | 'r')[] = [],
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => ((align[i] ?? 'l') === 'r' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => ((align[i] ?? 'l') === 'r' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}
