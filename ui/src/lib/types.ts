/**
 * The admin API's answers: the server declares each once, as zod, and the page takes the
 * inferred types from there, so the page, the server and the OpenAPI document cannot disagree.
 */
export type {
  AdminError,
  AuditEvent,
  BrowserState,
  FileEntry,
  FileSections as Sections,
  FlowDetail,
  FlowList,
  FlowParameter,
  FlowStepOutline,
  FlowSummary,
  GridStatus,
  SecretCard,
  SecretUse,
  SecretsAnswer,
  WorkspaceDeleted,
  WorkspaceDetail,
  WorkspaceList,
  WorkspaceRow,
} from '../../../src/admin/schemas';
export type {
  BrowserWindow,
  ControlAsked,
  ControlLeft,
  ControlState,
  LiveControl,
  LiveStatus,
  LiveTicket,
} from '../../../src/live/answers';
