/**
 * Every size a caller can send, in one place: each bounds a zod schema of the capability table
 * (so MCP, REST, OpenAPI and flow steps all refuse past it with a 400 naming it) or an answer.
 * Each is far above any real use and far below what would stall the server or fill its memory.
 */

/** a CSS selector or XPath */
export const MAX_SELECTOR_CHARS = 4096;
/** Chromium accepts longer URLs, but no page an agent should type needs one */
export const MAX_URL_CHARS = 8192;
/** write's text: typed key by key, so a longer one holds the browser for minutes (upload_file takes files) */
export const MAX_TEXT_CHARS = 20_000;
/** a script is a function body; long code belongs in the page or a file */
export const MAX_SCRIPT_CHARS = 100_000;
/** execute_script's answer as JSON: a bigger one is refused, since no model can read it */
export const MAX_SCRIPT_ANSWER_BYTES = 1_000_000;
/** a file upload_file gives the page, and so the text and base64 content that carry one */
export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_UPLOAD_BASE64_CHARS = Math.ceil(MAX_UPLOAD_BYTES / 3) * 4;
/**
 * a download the server reads from the Grid (keep_file, upload_file, its bytes): a page chooses
 * its size, and reading one holds it whole in memory, inflated in one synchronous step
 */
export const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;
/** a flow document, YAML or JSON */
export const MAX_DOCUMENT_BYTES = 256 * 1024;
/** short words: a key name, an attribute, an option's text, a MIME type, a message */
export const MAX_WORD_CHARS = 256;
export const MAX_LINE_CHARS = 2000;
/** a prompt's answer */
export const MAX_PROMPT_CHARS = 10_000;
/** a workspace://files… URI: a 255-byte name, percent-encoded, and its folder */
export const MAX_URI_CHARS = 1024;
/** a flow run's report: step results past it are left out and named (200 steps of 1 MB each would be 200 MB) */
export const MAX_REPORT_BYTES = 4_000_000;

/**
 * One saved flow as an MCP tool (flow_<name>: its name, title, description, parameters and hints
 * as tools/list shows them, in bytes of JSON): some 40 documented parameters.
 */
export const MAX_FLOW_TOOL_BYTES = 8 * 1024;
/**
 * What one caller's tools/list carries of flow tools (its own library's and global's, most
 * recently run first). tools/list is read by every client on every connection: with the
 * built-in tools (12,000 bytes) it stays under 45 KB, however large the libraries.
 */
export const MAX_FLOW_TOOLS_BYTES = 32 * 1024;
/** flows in one library (a workspace's own, or global) */
export const MAX_FLOWS_PER_LIBRARY = 1_000;
/** the files a listing of Files or a folder names, newest first; its count says how many there are */
export const MAX_LISTED_FILES = 100;
/** list_flows' answer, in bytes of JSON: the flows past it are counted, not listed */
export const MAX_FLOW_LIST_BYTES = 32 * 1024;

/** draft_flow's reach: the recent calls a workspace keeps, and so the most a draft reads. */
export const MAX_DRAFT_CALLS = 30;

// MCP notification streams (GET /mcp, subscriptions/listen) one process holds open: each a socket and a listener.
/** per caller (a token in one workspace): a client needs one, a few tabs a few */
export const STREAMS_PER_CALLER = 4;
/** in all, as many as the MCP SDK allows listen streams */
export const STREAMS_MAX = 1024;
/** STREAMS_PER_TOKEN's default: a quarter of the process's, so no one token can take them all */
export const STREAMS_PER_TOKEN = 256;

/**
 * MCP sessions (2025-11-25 over HTTP) one token holds across the replicas: a client that opens one
 * more ends the token's least recently used, whose client initializes again. Clients rarely end
 * theirs (DELETE), so without a bound a script that initializes in a loop would fill the store.
 */
export const MCP_SESSIONS_PER_TOKEN = 256;
