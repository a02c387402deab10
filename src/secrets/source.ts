import { z } from 'zod';
import type { AllowedUrls } from './origins.js';

export const sourceKind = z.enum(['filesystem', 'kubernetes']);

export type SourceKind = z.infer<typeof sourceKind>;

/** A secret as a source lists it: names and metadata, never a value. */
export interface ListedSecret {
  name: string;
  keys: string[];
  description: string | null;
  allowed: AllowedUrls;
  /** a Kubernetes workspace label; null: visible to every workspace */
  workspace: string | null;
  /** where it lives: a directory, or namespace/name */
  location: string;
}

export interface SourceListing {
  secrets: ListedSecret[];
  /** why this source answered nothing (unreachable, refused), for the listing */
  problem?: string;
}

/**
 * Where secrets come from. `list` answers metadata only; `read` fetches one value at the
 * moment it is typed (never cached), or undefined when it is gone.
 */
export interface SecretSource {
  readonly kind: SourceKind;
  /** the directory or the API namespace, for the listing */
  readonly location: string;
  list(): Promise<SourceListing>;
  read(secret: ListedSecret, key: string): Promise<string | undefined>;
}

/** A file written with `echo` ends in a newline; typed, it would press Enter. One is dropped. */
export function withoutFinalNewline(value: string): string {
  return value.replace(/\r?\n$/, '');
}
