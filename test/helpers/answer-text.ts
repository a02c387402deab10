import { expect } from 'vitest';

/** Every value of structuredContent shows in the text block, so a text-only client loses nothing. */
export function expectFieldsInText(text: string, structured: Record<string, unknown> | undefined): void {
  const leaves: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value !== null && typeof value === 'object') {
      Object.values(value).forEach(visit);
    } else if (value !== undefined && value !== '') {
      leaves.push(typeof value === 'string' ? value : JSON.stringify(value));
    }
  };
  visit(structured ?? {});
  expect(leaves.filter((leaf) => !text.includes(leaf))).toEqual([]);
  // Plain lines, not the answer's JSON.
  expect(text.trimStart().startsWith('{')).toBe(false);
}
