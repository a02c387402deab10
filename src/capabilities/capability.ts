import { z } from 'zod';
import { pageState } from '../browser/page-state.js';
import { DEFAULT_WAIT_SECONDS, firstMatching } from '../browser/selectors.js';
import { BadRequest } from '../errors.js';
import { CONTROL_STATES } from '../live/answers.js';
import type { BrowserToolContext, WorkspaceToolContext } from './context.js';
import { selectorChoice, selectorList } from './schemas.js';

export type Kind = 'read' | 'act';

/**
 * How a tool is served over HTTP. `{name}` in the path fills the argument of that name; a GET
 * or DELETE takes the other arguments from the query string; `bodyArgument` names the one
 * argument a PUT body carries whole (a flow document); `ifMatchArgument` the one If-Match fills.
 */
export interface HttpRendering {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  bodyArgument?: string;
  ifMatchArgument?: string;
}

/** How the call path attaches a call to a browser, before its handler runs. */
export type Attachment =
  /** acting tools: a saved workspace without a browser gets one on demand */
  | 'open'
  /** reads: never open a browser; no browser is a 404 with the remedy */
  | 'existing'
  /** tools that manage the workspace itself (open_session, end_browser, current_workspace), or never touch a browser */
  | 'none';

/**
 * A resource a tool mirrors: reading it is calling the tool with `args`; in a template
 * (`flow://flows/{name}`) each `{variable}` fills the argument of that name.
 */
export interface Mirror {
  uri: string;
  args?: Record<string, unknown>;
  /** what resources/list shows (default: the tool's name, title and description) */
  name?: string;
  title?: string;
  description?: string;
  /** default application/json (the answer as JSON); text/markdown is the answer's `text` */
  mimeType?: 'application/json' | 'text/markdown';
}

/** How draft_flow turns a recorded call into a step. */
export interface DraftFacts {
  /** the argument whose literal text is the caller's input: it becomes a declared parameter */
  input?: string;
  /** a read whose result the draft returns (it gets an id and return: true) */
  returns?: boolean;
}

/**
 * The MCP App (src/mcp/apps.ts) a client that renders apps shows beside this tool's answers. A
 * row that only its app calls (a button's action) is `visibility: ['app']`: a model never sees it.
 */
export interface AppFacts {
  /** the app's name: its resource is ui://selenium-flow/<name>, its page ui/apps/<name>/ */
  name: string;
  visibility?: readonly ('model' | 'app')[];
  /** the app is the answer (watch): a client that renders no app would get nothing of use from it */
  appIsTheAnswer?: true;
  /** a person's Control act: listed only to a client whose app may take Control (src/live/control-policy.ts) */
  control?: true;
}

/**
 * A row only its app calls: a person's button (take_control, hand_back), never a model's call.
 * It has no REST route: over HTTP nothing tells a person's click from a script holding a token.
 */
export function isAppButton(capability: { app?: AppFacts }): boolean {
  const visibility = capability.app?.visibility;
  return visibility !== undefined && !visibility.includes('model');
}

/** A row with a REST route: every row but an app's buttons. */
export type RestCapability = Capability & { http: HttpRendering };

/** A fact that may depend on the call's arguments (extract moves the page only when given a url). */
export type ByArguments<I> = boolean | ((args: I) => boolean);

interface CommonDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  kind: Kind;
  /** false for reads and for acts that cannot change anything a person cares about */
  destructive?: boolean;
  /** false for a read that can still write a file or move the browser (MCP readOnlyHint is a promise) */
  readOnly?: boolean;
  input: I;
  /** a rule across arguments ("exactly one of"); returns the refusal, with its fix */
  check?: (args: z.infer<I>) => string | undefined;
  output: O;
  /** may be a step of a saved flow */
  runnableInFlow: boolean;
  /**
   * still answers while a person holds the browser in the live view: reads that leave the page
   * and the window as the person left them, and tools that never command the browser
   */
  answersUnderControl?: ByArguments<z.infer<I>>;
  /** may take the browser to another page, so the call path reads and remembers where it is after a read */
  navigates?: ByArguments<z.infer<I>>;
  /** refused while a page dialog is open (default: every tool attached to a browser) */
  blockedByDialog?: boolean;
  /**
   * acts in the frame the caller entered, so it is refused once that frame is gone (default:
   * every tool attached to a browser); false for tools that choose the frame or page themselves
   */
  inEnteredFrame?: boolean;
  /**
   * false for tools that never command the browser themselves (flow tools, workspace reads).
   * run_flow takes it for its whole run, and its steps run in it (AsStep.inTurn).
   */
  takesTurn?: boolean;
  /** has its own bound instead of CALL_TIMEOUT (run_flow: FLOW_RUN_TIMEOUT; each of its steps has CALL_TIMEOUT) */
  boundsItself?: boolean;
  /**
   * while a person holds the browser, a client that declares the MCP Tasks extension gets a task
   * handle at once instead of a request held open (await_control waits for a person, not a browser)
   */
  answersAsTaskWhileHeld?: boolean;
  /** the read, through the ordinary call path, that says the page a person handed back (await_control) */
  handBackRead?: CallOf;
  /** the HTTP rendering, when it is not `POST /browser/<kebab-name>`; an app's button has none */
  http?: HttpRendering;
  /** the MCP resources this tool mirrors, for clients that cannot read resources (MIRROR_TOOLS) */
  mirrors?: Mirror | readonly Mirror[];
  /** the MCP App a client that renders apps shows for this tool (src/mcp/apps.ts) */
  app?: AppFacts;
  /** an MCP image block to attach, when the result carries one (never kept in a flow report) */
  image?: (result: z.infer<O>) => { data: string; mimeType: string } | undefined;
  /** what a flow report says of a step that ran this tool (default "done") */
  summary?: (args: z.infer<I>, result: z.infer<O>) => string;
  /** how draft_flow writes a recorded call of this tool as a step (default: as it was called) */
  draft?: DraftFacts;
  /** why this tool takes no `secret` argument, said instead of "unknown argument" */
  secretRefusal?: string;
}

export interface BrowserToolDefinition<I extends z.ZodObject, O extends z.ZodObject> extends CommonDefinition<I, O> {
  attach: 'open' | 'existing';
  handler: (args: z.infer<I>, ctx: BrowserToolContext) => Promise<z.infer<O>>;
}

export interface WorkspaceToolDefinition<I extends z.ZodObject, O extends z.ZodObject> extends CommonDefinition<I, O> {
  attach: 'none';
  /**
   * takes `session_id` in stateless mode like a browser tool (open_session does not); 'optional':
   * a stateless call without one still answers (current_workspace says it holds no browser)
   */
  usesSessionId?: 'required' | 'optional';
  handler: (args: z.infer<I>, ctx: WorkspaceToolContext) => Promise<z.infer<O>>;
}

type Arguments = Record<string, unknown>;

/** One call of another row, as a row fact names it. */
export interface CallOf {
  tool: Capability;
  args: Arguments;
}

/** One row of the capability table, with its types erased so rows can share an array. */
export type Capability = RowFacts & RowHandler;

/** What a row's handler sees, by how the call path attaches it: a browser, or the caller's workspace. */
export type RowHandler =
  | { attach: Exclude<Attachment, 'none'>; handler: BrowserHandler }
  | { attach: 'none'; handler: (args: Arguments, ctx: WorkspaceToolContext) => Promise<Arguments> };

export interface RowFacts {
  name: string;
  title: string;
  description: string;
  kind: Kind;
  destructive: boolean;
  /** never writes anything nor moves the browser: MCP's readOnlyHint */
  readOnly: boolean;
  /** the arguments as a caller sends them: strict, with session_id where it applies, and `check` */
  input: z.ZodObject;
  /** the tool's own arguments, as a flow step writes them (no session_id): strict, with `check` */
  stepArgs: z.ZodObject;
  output: z.ZodObject;
  runnableInFlow: boolean;
  answersUnderControl: (args: Arguments) => boolean;
  navigates: (args: Arguments) => boolean;
  blockedByDialog: boolean;
  inEnteredFrame: boolean;
  takesTurn: boolean;
  boundsItself: boolean;
  answersAsTaskWhileHeld: boolean;
  handBackRead?: CallOf;
  /** undefined for an app's button: a person's act through a host, never a REST call */
  http: HttpRendering | undefined;
  takesSessionId: boolean;
  /** a stateless call must pass session_id */
  needsSessionId: boolean;
  /** the MCP resources this tool mirrors; reading one is calling the tool (none: an empty list) */
  mirrors: readonly Mirror[];
  app?: AppFacts;
  image?: (result: Arguments) => { data: string; mimeType: string } | undefined;
  summary: (args: Arguments, result: Arguments) => string;
  draft: DraftFacts;
  secretRefusal?: string;
}

type BrowserHandler = (args: Arguments, ctx: BrowserToolContext) => Promise<Arguments>;

/** A definition with its argument and answer types erased, as its row holds it. */
type ErasedDefinition =
  BrowserToolDefinition<z.ZodObject, z.ZodObject> | WorkspaceToolDefinition<z.ZodObject, z.ZodObject>;

const sessionIdArgument = z.string().max(256).describe('stateless');

/** Every answer may be screened (see SecretCall.screenAnswer): it then says so, and why. */
const withheldShape = {
  withheld: z
    .literal(true)
    .optional()
    .describe(
      'part of this answer carried a secret typed into this browser and is blanked (a url keeps only its origin)',
    ),
  withheld_reason: z.string().optional().describe('why, when withheld'),
  // Beside every answer for the same reason: any result can be the one a person's request lands on.
  control: z
    .object({
      state: z.enum(CONTROL_STATES),
      who: z.string(),
      since: z.string(),
      hint: z.string(),
    })
    .optional()
    .describe(
      'a person asked for or holds this browser in the live view, or just handed it back: hint says what to do',
    ),
};

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  typed: BrowserToolDefinition<I, O> | WorkspaceToolDefinition<I, O>,
): Capability {
  // The call path hands a row's functions only what its own schemas parsed, so the types it
  // erases here are the ones the row was defined with.
  const def = typed as ErasedDefinition;
  if (isAppButton(def) && def.http !== undefined) {
    throw new Error(`${def.name} is an app's button: it has no REST route, so it takes no http rendering.`);
  }
  const takesSessionId = def.attach !== 'none' || def.usesSessionId !== undefined;
  const alternatives = def.attach !== 'none' && 'selector' in def.input.shape;
  const shape = alternatives ? withSelectorChoice(def.input.shape) : def.input.shape;
  const input = withCheck(
    z.strictObject(takesSessionId ? { ...shape, session_id: sessionIdArgument.optional() } : shape),
    def.check,
  );
  const stepArgs = withCheck(z.strictObject(shape), def.check);
  const output = (def.kind === 'act' && def.attach !== 'none' ? pageState.extend(def.output.shape) : def.output)
    .extend(withheldShape)
    .extend(alternatives ? selectorUsedShape : {});
  const facts: RowFacts = {
    name: def.name,
    title: def.title,
    description: def.description,
    kind: def.kind,
    destructive: def.destructive ?? def.kind === 'act',
    readOnly: def.kind === 'read' && def.readOnly !== false,
    input,
    stepArgs,
    output,
    runnableInFlow: def.runnableInFlow,
    answersUnderControl: byArguments(def.answersUnderControl ?? false),
    navigates: byArguments(def.navigates ?? false),
    blockedByDialog: def.blockedByDialog ?? def.attach !== 'none',
    inEnteredFrame: def.inEnteredFrame ?? def.attach !== 'none',
    takesTurn: def.takesTurn ?? true,
    boundsItself: def.boundsItself ?? false,
    answersAsTaskWhileHeld: def.answersAsTaskWhileHeld ?? false,
    handBackRead: def.handBackRead,
    http: isAppButton(def) ? undefined : (def.http ?? { method: 'POST', path: `/browser/${kebab(def.name)}` }),
    takesSessionId,
    needsSessionId: takesSessionId && (def.attach !== 'none' || def.usesSessionId !== 'optional'),
    mirrors: def.mirrors === undefined ? [] : isList(def.mirrors) ? def.mirrors : [def.mirrors],
    app: def.app,
    image: def.image,
    summary: def.summary ?? (() => 'done'),
    draft: def.draft ?? {},
    secretRefusal: def.secretRefusal,
  };
  if (def.attach === 'none') {
    return { ...facts, attach: def.attach, handler: def.handler };
  }
  return { ...facts, attach: def.attach, handler: alternatives ? tryingAlternatives(def.handler) : def.handler };
}

/** Array.isArray does not narrow a readonly array. */
function isList<T>(value: T | readonly T[]): value is readonly T[] {
  return Array.isArray(value);
}

const selectorUsedShape = {
  selector_used: z
    .number()
    .optional()
    .describe('selector was a list: which of its alternatives matched (0 is the first)'),
};

function withSelectorChoice(shape: z.ZodRawShape): z.ZodRawShape {
  return { ...shape, selector: shape.selector instanceof z.ZodOptional ? selectorChoice.optional() : selectorChoice };
}

/**
 * A list of selectors is settled before the handler runs: it sees the first alternative that
 * matches (waiting as long as the call's wait_timeout), and the answer says which one that was.
 */
function tryingAlternatives(handler: BrowserHandler): BrowserHandler {
  return async (args, ctx) => {
    if (!Array.isArray(args.selector)) {
      return handler(args, ctx);
    }
    if (args.state === 'absent' || args.state === 'hidden') {
      throw new BadRequest(
        `A list of selectors finds the first element that is there, so it cannot wait for one to be ${args.state}; pass one selector.`,
      );
    }
    const wait = typeof args.wait_timeout === 'number' ? args.wait_timeout : DEFAULT_WAIT_SECONDS;
    const { index, selector } = await firstMatching(ctx.driver, selectorList.parse(args.selector), wait);
    return { ...(await handler({ ...args, selector }, ctx)), selector_used: index };
  };
}

function byArguments(fact: ByArguments<Arguments>): (args: Arguments) => boolean {
  return typeof fact === 'function' ? fact : () => fact;
}

function withCheck(schema: z.ZodObject, check: ((args: Arguments) => string | undefined) | undefined): z.ZodObject {
  if (!check) {
    return schema;
  }
  return schema.superRefine((args, ctx) => {
    const refusal = check(args);
    if (refusal) {
      ctx.addIssue({ code: 'custom', message: refusal });
    }
  });
}

export function kebab(name: string): string {
  return name.replace(/_/g, '-');
}

/**
 * MCP annotations derive from the table's `kind`: readOnlyHint for reads, destructiveHint stated
 * for every act. The title is the tool's own top-level `title`. No openWorldHint: a client acts on
 * read-only and destructive (auto-approval, confirmation), and tools/list, read by every client on
 * every connection, is held to 12,000 bytes.
 */
export function annotationsOf(capability: Capability): Record<string, boolean> {
  return capability.readOnly ? { readOnlyHint: true } : { destructiveHint: capability.destructive };
}

/**
 * A result without the image it attaches: an image travels once (an MCP image block), and never
 * in a flow report, which a model reads and where an image costs thousands of tokens.
 */
export function splitImage(
  capability: Capability,
  result: Record<string, unknown>,
): { image?: { data: string; mimeType: string }; rest: Record<string, unknown> } {
  const image = capability.image?.(result);
  if (!image) {
    return { rest: result };
  }
  return { image, rest: Object.fromEntries(Object.entries(result).filter(([, value]) => value !== image.data)) };
}

/** A value as a flow report's summary shows it: text as it is, anything else as JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** The same, cut to 80 characters. */
export function shortText(value: unknown): string {
  const text = asText(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
