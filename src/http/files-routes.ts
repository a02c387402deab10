import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequest } from '../errors.js';
import type { FileBytes } from '../files/files.js';
import { SIGNED_PREFIX } from '../files/links.js';
import { FOLDERS, isFolder, servedInline, type Folder, type Section } from '../files/names.js';
import { uriOf } from '../files/uris.js';
import { adminRoute, services } from './admin/routes.js';
import { callerOf } from './plugins/caller.js';
import { pathParams, queryOf, type PlainRoute } from './routes.js';

const workspaceOf = (request: FastifyRequest) => callerOf(request).workspace;
const param = (request: FastifyRequest, key: string) => pathParams(request)[key] ?? '';
const agent = { tag: 'files', access: 'bearer' } as const;

/**
 * A file's bytes at the path of its URI: `workspace://files/<x>` is `GET /files/<x>` (`screenshots`
 * and `downloads` are reserved names in Files, so `/files/screenshots/<name>` is always the
 * folder's). Listing and keeping are tools (`GET /files[?folder=]`, `POST /files/kept`), rendered
 * from the table with the rest. Then signed links, and the operator's door (admin token): clear
 * and delete live there and in no agent tool.
 */
export const FILE_ROUTES: readonly PlainRoute[] = [
  ...FOLDERS.map(bytesRoute),
  bytesRoute('files'),
  {
    method: 'GET',
    path: `${SIGNED_PREFIX}/{section}/{workspace}/{name}`,
    summary: 'A file by a signed link (no bearer token: the link carries its proof until it expires)',
    tag: 'files',
    access: 'signed',
    answers: 'file',
    query: { exp: 'the expiry, Unix seconds', sig: 'the HMAC of the path and the expiry' },
    handler: async (request, reply, { deps }) => {
      const query = queryOf(request);
      const file = await deps.files.readSigned(
        param(request, 'section'),
        param(request, 'workspace'),
        param(request, 'name'),
        query.exp,
        query.sig,
      );
      return sendFile(reply, file);
    },
  },
  {
    ...adminRoute('GET workspaces/{workspace}/files'),
    summary: "A workspace's downloads, screenshots and Files",
    // the admin page polls it while open: downloads are asked of the node only near the last call
    handler: async (request, _reply, context) => services(context).overview.sections(param(request, 'workspace')),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/files/downloads'),
    summary: "Clear a workspace's downloads (only while its browser lives); answers the names removed",
    handler: async (request, _reply, { deps }) => deps.files.clearDownloads(param(request, 'workspace')),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/files/screenshots'),
    summary: "Clear a workspace's screenshots; answers the names removed",
    handler: async (request, _reply, { deps }) => deps.files.clearScreenshots(param(request, 'workspace')),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/files/{name}'),
    summary: "Delete one file of a workspace's Files",
    handler: async (request, _reply, { deps }) =>
      deps.files.deleteFile(param(request, 'workspace'), param(request, 'name')),
  },
  {
    ...adminRoute('PUT workspaces/{workspace}/files/{folder}/{name}/kept'),
    summary: "Keep a screenshot or a download in a workspace's Files",
    handler: async (request, _reply, { deps }) =>
      deps.files.keep(param(request, 'workspace'), uriOf(keptFolder(param(request, 'folder')), param(request, 'name'))),
  },
];

/** One file's bytes, at the path of its URI. */
function bytesRoute(section: Section): PlainRoute {
  return {
    ...agent,
    method: 'GET',
    path: section === 'files' ? '/files/{name}' : `/files/${section}/{name}`,
    summary: section === 'files' ? "One file of the workspace's Files" : `One file of the workspace's ${section}`,
    answers: 'file',
    handler: async (request, reply, { deps }) => {
      const name = param(request, 'name');
      if (section === 'files' && isFolder(name)) {
        // The folder's own URI (workspace://files/screenshots) is listed by the tool's route.
        throw new BadRequest(`/files/${name} is a folder, not a file: list it with GET /files?folder=${name}.`);
      }
      return sendFile(reply, await deps.files.read(workspaceOf(request), { section, name }));
    },
  };
}

function keptFolder(folder: string): Section {
  if (!isFolder(folder)) {
    throw new BadRequest(
      `${JSON.stringify(folder)} is not a folder that can be kept from: use …/files/screenshots/<name>/kept or …/files/downloads/<name>/kept.`,
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
