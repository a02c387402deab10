/** A value parsed from JSON or YAML that is an object of named values: not null, not a list. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `Array.isArray` answers `any[]`; a parsed list's items are unknown until checked. */
export function isJsonArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}
