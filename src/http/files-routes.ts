import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callTool } from '../capabilities/call.js';
import { fileListing, keepFile } from '../capabilities/file-tools.js';
import { jsonSchemaOf } from '../capabilities/json-schema.js';
import { BadRequest } from '../errors.js';
import type { FileBytes } from '../files/files.js';
import { SIGNED_PREFIX } from '../files/links.js';
import { FOLDERS, isFolder, servedInline, type Folder, type Section } from '../files/names.js';
import { uriOf } from '../files/uris.js';
import { resolveCaller } from '../workspace/caller.js';
import { pathParams, type PlainRoute } from './routes.js';

/**
 * The REST tree of a workspace's files, mirroring the URIs exactly: `workspace://files/<x>` is
 * `GET /files/<x>`. That works because `screenshots` and `downloads` are reserved names in
 * Files, so `/files/screenshots` is always the folder and never a file.
 */
const workspaceOf = (request: FastifyRequest) => resolveCaller({ header: request.headers['x-workspace'] }).workspace;
const listing = { json: jsonSchemaOf(fileListing, 'output') };

export const FILE_ROUTES: readonly PlainRoute[] = [
    { method: 'GET', path: '/files', summary: "The workspace's Files, with its two folders", tag: 'files', access: 'bearer', answers: listing, handler: async (request, _reply, { deps }) => deps.files.root(workspaceOf(request)) },
    ...FOLDERS.flatMap((folder): PlainRoute[] => [
      { method: 'GET', path: `/files/${folder}`, summary: `The workspace's ${folder}, newest first`, tag: 'files', access: 'bearer', answers: listing, handler: async (request, _reply, { deps }) => deps.files.folder(workspaceOf(request), folder) },
      {
        method: 'GET',
        path: `/files/${folder}/{name}`,
        summary: `One file of the workspace's ${folder}`,
        tag: 'files',
        access: 'bearer',
        answers: 'file',
        handler: async (request, reply, { deps }) => sendFile(reply, await deps.files.read(workspaceOf(request), { section: folder, name: pathParams(request).name ?? '' })),
      },
    ]),
    {
      method: 'GET',
      path: '/files/{name}',
      summary: "One file of the workspace's Files",
      tag: 'files',
      access: 'bearer',
      answers: 'file',
      handler: async (request, reply, { deps }) => sendFile(reply, await deps.files.read(workspaceOf(request), { section: 'files', name: pathParams(request).name ?? '' })),
    },
    {
      // keep_file by path, through the one call path (turns, errors) like the tool itself.
      method: 'PUT',
      path: '/files/{folder}/{name}/kept',
      summary: 'Keep a screenshot (moved) or a download (copied) in Files',
      tag: 'files',
      access: 'bearer',
      answers: { json: jsonSchemaOf(keepFile.output, 'output') },
      handler: async (request, _reply, { deps }) => {
        const { folder = '', name = '' } = pathParams(request);
        const caller = resolveCaller({ header: request.headers['x-workspace'] });
        return callTool(deps, keepFile, { uri: uriOf(keptFolder(folder), name) }, caller);
      },
    },
    {
      method: 'GET',
      path: `${SIGNED_PREFIX}/{section}/{workspace}/{name}`,
      summary: 'A file by a signed link (no bearer token: the link carries its proof until it expires)',
      tag: 'files',
      access: 'signed',
      answers: 'file',
      query: { exp: 'the expiry, Unix seconds', sig: 'the HMAC of the path and the expiry' },
      handler: async (request, reply, { deps }) => {
        const { section = '', workspace = '', name = '' } = pathParams(request);
        const query = request.query as Record<string, unknown>;
        return sendFile(reply, await deps.files.readSigned(section, workspace, name, query.exp, query.sig));
      },
    },
    ...adminFileRoutes(),
];

/** The operator's door (admin token): clear and delete live here and in no agent tool. */
function adminFileRoutes(): PlainRoute[] {
  const base = '/admin/api/workspaces/{workspace}/files';
  const admin = { tag: 'admin', access: 'admin', answers: { json: { type: 'object' } } } as const;
  const param = (request: FastifyRequest, key: string) => pathParams(request)[key] ?? '';
  return [
    { method: 'GET', path: base, summary: "A workspace's downloads, screenshots and Files", ...admin, handler: async (request, _reply, { deps }) => deps.files.sections(param(request, 'workspace')) },
    { method: 'DELETE', path: `${base}/downloads`, summary: "Clear a workspace's downloads", ...admin, handler: async (request, _reply, { deps }) => deps.files.clearDownloads(param(request, 'workspace')) },
    { method: 'DELETE', path: `${base}/screenshots`, summary: "Clear a workspace's screenshots", ...admin, handler: async (request, _reply, { deps }) => deps.files.clearScreenshots(param(request, 'workspace')) },
    { method: 'DELETE', path: `${base}/{name}`, summary: "Delete one file of a workspace's Files", ...admin, handler: async (request, _reply, { deps }) => deps.files.deleteFile(param(request, 'workspace'), param(request, 'name')) },
    {
      method: 'PUT',
      path: `${base}/{folder}/{name}/kept`,
      summary: "Keep a screenshot or a download in a workspace's Files",
      ...admin,
      handler: async (request, _reply, { deps }) => deps.files.keep(param(request, 'workspace'), uriOf(keptFolder(param(request, 'folder')), param(request, 'name'))),
    },
  ];
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
