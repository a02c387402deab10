import type { WebDriver } from 'selenium-webdriver';
import { z } from 'zod';
import type { Caller } from '../workspace/caller.js';
import type { WorkspaceView } from './workspace-view.js';

export type Kind = 'read' | 'act';

/** How the call path finds the browser a tool works on, before its handler runs. */
export type BrowserNeed =
  /** acting tools: a saved workspace without a browser gets one on demand */
  | 'open'
  /** reads: never open a browser; no browser is a 404 with the remedy */
  | 'existing'
  /** tools that manage the workspace itself (open_session, end_browser, current_workspace) */
  | 'none';

export interface BrowserContext {
  driver: WebDriver;
  browserName: string;
  caller: Caller;
  dataDir: string | undefined;
}

export interface WorkspaceContext {
  caller: Caller;
  workspace: WorkspaceView;
  args: { session_id?: string };
}

interface CommonDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  kind: Kind;
  /** false for reads and for acts that cannot change anything a person cares about */
  destructive?: boolean;
  input: I;
  /** a rule across arguments ("exactly one of"); returns the refusal, with its fix */
  check?: (args: z.infer<I>) => string | undefined;
  output: O;
  /** may be a step of a saved flow */
  runnableInFlow: boolean;
  /** still answers while a person holds the browser in the live view */
  answersUnderControl?: boolean;
  /** the HTTP rendering, when it is not `POST /browser/<kebab-name>` */
  http?: { method: 'GET' | 'POST'; path: string };
  /** an MCP image block to attach, when the result carries one */
  image?: (result: z.infer<O>) => { data: string; mimeType: string } | undefined;
}

export interface BrowserToolDefinition<I extends z.ZodObject, O extends z.ZodObject> extends CommonDefinition<I, O> {
  browser: 'open' | 'existing';
  handler: (args: z.infer<I>, ctx: BrowserContext) => Promise<z.infer<O>>;
}

export interface WorkspaceToolDefinition<I extends z.ZodObject, O extends z.ZodObject> extends CommonDefinition<I, O> {
  browser: 'none';
  /** takes `session_id` in stateless mode like a browser tool (open_session does not) */
  usesSessionId?: boolean;
  handler: (args: z.infer<I>, ctx: WorkspaceContext) => Promise<z.infer<O>>;
}

/** One row of the capability table, with its types erased so rows can share an array. */
export interface Capability {
  name: string;
  title: string;
  description: string;
  kind: Kind;
  destructive: boolean;
  input: z.ZodObject;
  output: z.ZodObject;
  runnableInFlow: boolean;
  answersUnderControl: boolean;
  http: { method: 'GET' | 'POST'; path: string };
  browser: BrowserNeed;
  takesSessionId: boolean;
  image?: (result: Record<string, unknown>) => { data: string; mimeType: string } | undefined;
  handler: (args: Record<string, unknown>, ctx: BrowserContext & WorkspaceContext) => Promise<Record<string, unknown>>;
}

const sessionIdArgument = z
  .string()
  .min(1)
  .describe('Stateless callers only: the session_id open_session returned. Omit it when the call names a workspace.');

/** The answer of every acting tool: where the browser is now. */
export const pageState = z.object({
  url: z.string().describe('the page the browser is on now'),
  title: z.string(),
  dialog: z
    .object({ message: z.string() })
    .optional()
    .describe('a page dialog is open: answer it with the dialog tool'),
});

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: BrowserToolDefinition<I, O> | WorkspaceToolDefinition<I, O>,
): Capability {
  const takesSessionId = def.browser !== 'none' || def.usesSessionId === true;
  const strict = z.strictObject(takesSessionId ? { ...def.input.shape, session_id: sessionIdArgument.optional() } : def.input.shape);
  const check = def.check as ((args: unknown) => string | undefined) | undefined;
  const input = check
    ? strict.superRefine((args, ctx) => {
        const refusal = check(args);
        if (refusal) {
          ctx.addIssue({ code: 'custom', message: refusal });
        }
      })
    : strict;
  const output = def.kind === 'act' && def.browser !== 'none' ? pageState.extend(def.output.shape) : def.output;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    kind: def.kind,
    destructive: def.destructive ?? def.kind === 'act',
    input,
    output,
    runnableInFlow: def.runnableInFlow,
    answersUnderControl: def.answersUnderControl ?? false,
    http: def.http ?? { method: 'POST', path: `/browser/${kebab(def.name)}` },
    browser: def.browser,
    takesSessionId,
    image: def.image as Capability['image'],
    handler: def.handler as unknown as Capability['handler'],
  };
}

export function kebab(name: string): string {
  return name.replace(/_/g, '-');
}

/** MCP annotations derive from the table's one semantic field, `kind`. */
export function annotationsOf(capability: Capability): Record<string, unknown> {
  return {
    title: capability.title,
    readOnlyHint: capability.kind === 'read',
    destructiveHint: capability.kind === 'act' ? capability.destructive : undefined,
    openWorldHint: capability.browser !== 'none',
  };
}
