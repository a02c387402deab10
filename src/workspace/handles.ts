import { createHash, randomBytes } from 'node:crypto';

/** Store keys of stateless handles: the handle's digest, never the handle (a store dump opens nothing). */
export const HANDLE_PREFIX = 'handle:';

/** Unguessable (24 random bytes): a handle is all a stateless caller shows to reach its browser. */
export function newHandle(): string {
  return randomBytes(24).toString('base64url');
}

export function handleKey(handle: string): string {
  return HANDLE_PREFIX + createHash('sha256').update(handle).digest('hex');
}

export const NO_SUCH_HANDLE =
  'No browser with that session_id (ended, expired, or not opened by you); call open_session for a new one.';
