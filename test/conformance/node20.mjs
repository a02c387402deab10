// The conformance suite (0.2) imports fs.globSync, which Node 22 added, for its tier-check
// command only: on Node 20 that import fails before any scenario runs. Loaded with --import, this
// hands the suite's own modules an fs whose globSync says so, and changes nothing else.
import * as fs from 'node:fs';
import { register } from 'node:module';
import { URL } from 'node:url';

const FS_WITH_GLOB = `data:text/javascript,${encodeURIComponent(
  "export * from 'node:fs'; export { default } from 'node:fs';" +
    "export function globSync() { throw new Error('fs.globSync needs Node 22 or later.'); }",
)}`;

if (!('globSync' in fs) && !new URL(import.meta.url).searchParams.has('hooks')) {
  register(`${import.meta.url}?hooks`);
}

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes('/@modelcontextprotocol/conformance/') ?? false;
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: FS_WITH_GLOB, shortCircuit: true };
  }
  return next(specifier, context);
}
