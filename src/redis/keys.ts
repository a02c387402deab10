/**
 * Every key this server writes, named in one place: all start with KEY_PREFIX, so a Redis shared
 * with other applications (or a second deployment under another prefix) keeps them apart.
 */
export const KEY_PREFIX = 'selenium-flow:';

/** a workspace record, by its store key (workspace/caller.ts) */
export const RECORD_PREFIX = `${KEY_PREFIX}workspace:`;
/** per owner (a Principal's id), a set of the record keys holding a browser they opened */
export const OWNER_PREFIX = `${KEY_PREFIX}owner:`;
/** a browser's line of calls and its holder (turns.ts) */
export const TURN_PREFIX = `${KEY_PREFIX}turn:`;
/** the live view's tickets and Control episodes */
export const LIVE_PREFIX = `${KEY_PREFIX}live:`;
/** a workspace's network capture: its entries, dropped count and state */
export const NETWORK_PREFIX = `${KEY_PREFIX}network:`;
/** The audit history: a list, newest at the head, cut to MAX_HISTORY on every push. */
export const EVENTS_KEY = `${KEY_PREFIX}events`;
/** Where each event is published as it happens, for every replica's streams. */
export const EVENTS_CHANNEL = `${KEY_PREFIX}events:live`;
