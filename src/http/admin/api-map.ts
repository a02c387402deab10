import type { z } from 'zod';
import { controlAsked, controlLeft, liveStatus, liveTicket } from '../../live/answers.js';
import * as schema from './schemas.js';

/**
 * The admin API as the page calls it: `METHOD path` (under /admin/api/, `{x}` one path segment)
 * → the zod of what it answers, and of the JSON body it takes. Each route row takes its method,
 * path and schemas from here (adminRoute in routes.ts); the page imports only the types below, so
 * it compiles against the same declarations the server answers with and documents.
 */
export const ADMIN_API_MAP = {
  'GET workspaces': { answer: schema.workspaceList },
  'GET workspaces/{workspace}': { answer: schema.workspaceDetail },
  'DELETE workspaces/{workspace}': { answer: schema.workspaceDeleted },
  'DELETE workspaces/{workspace}/browser': { answer: schema.browserEnded },
  'GET workspaces/{workspace}/flows': { answer: schema.flowList },
  'GET workspaces/{workspace}/flows/{flow}': { answer: schema.flowDetail },
  'PUT workspaces/{workspace}/flows/{flow}': { answer: schema.flowSaved },
  'DELETE workspaces/{workspace}/flows/{flow}': { answer: schema.flowDeleted },
  'POST workspaces/{workspace}/flows/{flow}/move': { answer: schema.flowMoved, body: schema.flowMoveRequest },
  'GET workspaces/{workspace}/files': { answer: schema.fileSections },
  'DELETE workspaces/{workspace}/files/downloads': { answer: schema.downloadsCleared },
  'DELETE workspaces/{workspace}/files/screenshots': { answer: schema.screenshotsCleared },
  'DELETE workspaces/{workspace}/files/{name}': { answer: schema.fileDeleted },
  'PUT workspaces/{workspace}/files/{folder}/{name}/kept': { answer: schema.fileKept },
  'GET workspaces/{workspace}/live': { answer: liveStatus },
  'POST workspaces/{workspace}/live-ticket': { answer: liveTicket },
  'POST workspaces/{workspace}/control': { answer: controlAsked },
  'DELETE workspaces/{workspace}/control': { answer: controlLeft },
  'GET secrets': { answer: schema.secretsAnswer },
  'GET grid': { answer: schema.gridStatus },
  'GET events': { answer: schema.eventHistory },
} as const;

type Map = typeof ADMIN_API_MAP;
export type AdminRoute = keyof Map;

/** What each route answers and takes, as the page sees it (z.output of the declarations above). */
export type AdminApi = {
  [R in AdminRoute]: {
    answer: z.output<Map[R]['answer']>;
    // A route whose body is checked by its handler alone (the live view's {who, viewer}) takes any.
    body: Map[R] extends { body: z.ZodType } ? z.input<Map[R]['body']> : unknown;
  };
};
