import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callTool, type CallDeps } from '../capabilities/call.js';
import { keepFile } from '../capabilities/file-tools.js';
import { BadRequest } from '../errors.js';
import type { FileBytes } from '../files/files.js';
import { SIGNED_PREFIX } from '../files/links.js';
import { FOLDERS, isFolder, servedInline, type Folder, type Section } from '../files/names.js';
import { uriOf } from '../files/uris.js';
import { resolveCaller } from '../workspace/caller.js';

/** Who may call a route, when it is not the bearer token: the admin token, or a signed link. */
export type RouteGuard = 'admin' | 'signed';

declare module 'fastify' {
  interface FastifyContextConfig {
    guard?: RouteGuard;
  }
}

type Params = Record<string, string>;

/**
 * The REST tree of a workspace's files, mirroring the URIs exactly: `workspace://files/<x>` is
 * `GET /files/<x>`. That works because `screenshots` and `downloads` are reserved names in
 * Files, so `/files/screenshots` is always the folder and never a file.
 */
export function registerFileRoutes(app: FastifyInstance, deps: CallDeps): void {
  const { files } = deps;
  const workspaceOf = (request: FastifyRequest) => resolveCaller({ header: request.headers['x-workspace'] }).workspace;

  app.get('/files', async (request) => files.root(workspaceOf(request)));
  for (const folder of FOLDERS) {
    app.get(`/files/${folder}`, async (request) => files.folder(workspaceOf(request), folder));
    app.get(`/files/${folder}/:name`, async (request, reply) =>
      sendFile(reply, await files.read(workspaceOf(request), { section: folder, name: (request.params as Params).name ?? '' })),
    );
  }
  app.get('/files/:name', async (request, reply) =>
    sendFile(reply, await files.read(workspaceOf(request), { section: 'files', name: (request.params as Params).name ?? '' })),
  );
  // keep_file by path, through the one call path (turns, errors) like the tool itself.
  app.put('/files/:folder/:name/kept', async (request) => {
    const { folder = '', name = '' } = request.params as Params;
    const caller = resolveCaller({ header: request.headers['x-workspace'] });
    return callTool(deps, keepFile, { uri: uriOf(keptFolder(folder), name) }, caller);
  });

  app.get(`${SIGNED_PREFIX}/:section/:workspace/:name`, { config: { guard: 'signed' } }, async (request, reply) => {
    const { section = '', workspace = '', name = '' } = request.params as Params;
    const query = request.query as Record<string, unknown>;
    return sendFile(reply, await files.readSigned(section, workspace, name, query.exp, query.sig));
  });

  registerAdminFileRoutes(app, deps);
}

/** The operator's door (admin token): clear and delete live here and in no agent tool. */
function registerAdminFileRoutes(app: FastifyInstance, deps: CallDeps): void {
  const { files } = deps;
  const admin = { config: { guard: 'admin' as const } };
  const base = '/admin/api/workspaces/:workspace/files';
  const param = (request: FastifyRequest, key: string) => (request.params as Params)[key] ?? '';

  app.get(base, admin, async (request) => files.sections(param(request, 'workspace')));
  app.delete(`${base}/downloads`, admin, async (request) => files.clearDownloads(param(request, 'workspace')));
  app.delete(`${base}/screenshots`, admin, async (request) => files.clearScreenshots(param(request, 'workspace')));
  app.delete(`${base}/:name`, admin, async (request) => files.deleteFile(param(request, 'workspace'), param(request, 'name')));
  app.put(`${base}/:folder/:name/kept`, admin, async (request) =>
    files.keep(param(request, 'workspace'), uriOf(keptFolder(param(request, 'folder')), param(request, 'name'))),
  );
}

function keptFolder(folder: string): Section {
  if (!isFolder(folder)) {
    throw new BadRequest(
      `${JSON.stringify(folder)} is not a folder that can be kept from: use PUT /files/screenshots/<name>/kept or PUT /files/downloads/<name>/kept.`,
    );
  }
  return folder satisfies Folder;
}

/**
 * The bytes, named per RFC 6266 (an ASCII fallback plus `filename*`), so a quote, an emoji or
 * a line break in a name can neither break nor inject a header. Only types that cannot run
 * script are shown in place; everything else downloads, sandboxed and unsniffed.
 */
function sendFile(reply: FastifyReply, file: FileBytes) {
  const inline = servedInline(file.contentType);
  return reply
    .header('content-type', file.contentType)
    .header('content-disposition', contentDisposition(file.name, { type: inline ? 'inline' : 'attachment' }))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', 'sandbox')
    .header('cache-control', 'private, no-cache')
    .send(Buffer.from(file.bytes));
}
