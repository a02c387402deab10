import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packUi, readUi, unpackUi } from '../../src/ui-archive.js';

describe('the admin page and apps in one file (dist/ui.br)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'selenium-flow-ui-archive-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const files = new Map([
    ['ui/index.html', Buffer.from('<!doctype html><script src="./assets/index.js"></script>\n')],
    ['ui/assets/index.js', Buffer.from('export const shared = "the same code in two files";\n'.repeat(200))],
    ['ui/assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0a, 0x00, 0xff])],
    ['apps/live.html', Buffer.from('<script>export const shared = "the same code in two files";</script>\n')],
    ['apps/empty.html', Buffer.alloc(0)],
  ]);

  it('gives back every file byte for byte, text and binary, with newlines in them', () => {
    expect(unpackUi(packUi(files))).toEqual(files);
  });

  it('stores what the files share once', () => {
    const alone = [...files.values()].reduce((sum, body) => sum + packUi(new Map([['x', body]])).length, 0);
    expect(packUi(files).length).toBeLessThan(alone);
  });

  it('refuses a damaged build, saying to build again', () => {
    const packed = packUi(files);
    const cut = brotliCompressSync(brotliDecompressSync(packed).subarray(0, -10));
    expect(() => unpackUi(cut)).toThrow(/damaged; run `npm run build` again/);
    expect(() => unpackUi(brotliCompressSync(Buffer.from('no index here')))).toThrow(/damaged/);
  });

  it('reads none where nothing is built, and a build made while it runs', async () => {
    const path = join(dir, 'ui.br');
    expect(readUi(path)).toBeUndefined();
    await writeFile(path, packUi(files));
    expect(readUi(path)?.get('apps/live.html')?.toString()).toContain('<script>');
    await writeFile(path, packUi(new Map([['apps/live.html', Buffer.from('rebuilt, and longer than before')]])));
    expect(readUi(path)?.get('apps/live.html')?.toString()).toBe('rebuilt, and longer than before');
  });
});
