import { MAX_DRAFT_CALLS } from '../limits.js';
import type { WorkspaceRecord } from './records.js';

/** One call a workspace made, as draft_flow reads it: the tool and its arguments, never a result. */
export interface RecentCall {
  tool: string;
  args: Record<string, unknown>;
}

/** The calls a record keeps, newest last: enough for any draft, small enough to ride every write. */
export const RECENT_CALLS_KEPT = MAX_DRAFT_CALLS;
/** A call whose arguments are larger (a long script) is not kept: a draft is for short, typed tasks. */
export const RECENT_CALL_MAX_BYTES = 4096;

/**
 * Appends a successful call to the record, dropping the oldest beyond RECENT_CALLS_KEPT. A call
 * holding text that `carriesSecret` recognises (a value typed into this browser as a secret)
 * is not kept at all: the record must never hold a secret's value.
 */
export function rememberCall(
  record: WorkspaceRecord,
  call: RecentCall,
  carriesSecret: (text: string) => boolean,
): void {
  const json = JSON.stringify(call.args);
  if (Buffer.byteLength(json) > RECENT_CALL_MAX_BYTES || stringsIn(call.args).some(carriesSecret)) {
    return;
  }
  record.recent = [
    ...(record.recent ?? []),
    { tool: call.tool, args: JSON.parse(json) as Record<string, unknown> },
  ].slice(-RECENT_CALLS_KEPT);
}

/** Whether a read's answer holds anything beyond where the browser is. */
export function answeredSomething(result: Record<string, unknown>): boolean {
  return Object.entries(result).some(
    ([key, value]) =>
      !PAGE_KEYS.has(key) &&
      value !== null &&
      value !== undefined &&
      value !== '' &&
      !(Array.isArray(value) && value.length === 0),
  );
}

const PAGE_KEYS = new Set(['url', 'title', 'dialog', 'withheld', 'withheld_reason', 'truncated', 'selector_used']);

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') {
    return [value];
  }
  if (value !== null && typeof value === 'object') {
    return Object.values(value).flatMap(stringsIn);
  }
  return [];
}
