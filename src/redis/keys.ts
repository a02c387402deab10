/**
 * Every key this server writes, named in one place: all start with KEY_PREFIX, so a Redis shared
 * with other applications (or a second deployment under another prefix) keeps them apart.
 */
export const KEY_PREFIX = 'selenium-flow:';

/** a workspace record, by its store key (workspace/caller.ts) */
export const RECORD_PREFIX = `${KEY_PREFIX}workspace:`;
/** per owner (a Principal's id), a set of the record keys holding a browser they opened */
export const OWNER_PREFIX = `${KEY_PREFIX}owner:`;
/** per owner (a Principal's id), the workspace names it claimed (WORKSPACES_PER_TOKEN) */
export const CLAIMS_PREFIX = `${KEY_PREFIX}claims:`;
/** a browser's line of calls and its holder (turns.ts) */
export const TURN_PREFIX = `${KEY_PREFIX}turn:`;
/** the live view's tickets and Control episodes */
export const LIVE_PREFIX = `${KEY_PREFIX}live:`;
/** a workspace's network capture: its entries, dropped count, state, and why it stopped by itself */
export const NETWORK_PREFIX = `${KEY_PREFIX}network:`;
/** an MCP session (2025-11-25 over HTTP), by its id's digest (workspace/mcp-sessions.ts) */
export const MCP_SESSION_PREFIX = `${KEY_PREFIX}mcp-session:`;
/** per owner, its MCP sessions' digests scored by their last use: the least recently used goes first */
export const MCP_SESSIONS_PREFIX = `${KEY_PREFIX}mcp-sessions:`;
/** The audit history: a list, newest at the head, cut to MAX_HISTORY on every push. */
export const EVENTS_KEY = `${KEY_PREFIX}events`;
/** Where each event is published as it happens, for every replica's streams. */
export const EVENTS_CHANNEL = `${KEY_PREFIX}events:live`;
