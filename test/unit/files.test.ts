import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DownloadsOff } from '../../src/errors.js';
import { Files, type DownloadsSource } from '../../src/files/files.js';
import { LinkSigner } from '../../src/files/links.js';
import { candidateNames, isFileName } from '../../src/files/names.js';
import { parseFileUri, uriOf } from '../../src/files/uris.js';

describe('file URIs', () => {
  it.each([
    ['files', 'report.pdf', 'workspace://files/report.pdf'],
    ['screenshots', 'shot.png', 'workspace://files/screenshots/shot.png'],
    ['downloads', 'export.csv', 'workspace://files/downloads/export.csv'],
    ['files', 'Q3 summary (1).csv', 'workspace://files/Q3%20summary%20(1).csv'],
    ['files', 'a%b #1?.txt', 'workspace://files/a%25b%20%231%3F.txt'],
  ] as const)('round-trips %s/%s', (section, name, uri) => {
    expect(uriOf(section, name)).toBe(uri);
    expect(parseFileUri(uri)).toEqual({ section, name });
  });

  it('reads a literal space like its escape', () => {
    expect(parseFileUri('workspace://files/screenshots/shot (1).png')).toEqual({
      section: 'screenshots',
      name: 'shot (1).png',
    });
  });

  it.each([
    'workspace://files',
    'workspace://files/screenshots',
    'workspace://files/downloads',
    'workspace://files/a/b',
    'workspace://files/flows/x',
    'workspace://files/%E0',
    'workspace://current',
    '',
  ])('refuses %j with the valid shapes', (uri) => {
    expect(() => parseFileUri(uri)).toThrow('workspace://files/screenshots/<name>');
  });

  it('refuses a name that would be a path', () => {
    expect(() => parseFileUri('workspace://files/..%2F..%2Fetc%2Fpasswd')).toThrow('without "/"');
    expect(() => parseFileUri('workspace://files/downloads/..')).toThrow('not "." or ".."');
  });
});

describe('file names', () => {
  it('keeps a name exactly as chosen, and refuses paths and control characters', () => {
    for (const name of [' leading space', 'trailing.', '.env', 'Q4 "final" 😀.png', 'a'.repeat(255)]) {
      expect(isFileName(name), name).toBe(true);
    }
    for (const name of ['', '.', '..', 'a/b', 'a\\b', 'line\nbreak', 'nul\0', 'é'.repeat(128)]) {
      expect(isFileName(name), JSON.stringify(name)).toBe(false);
    }
  });

  it('numbers a clash the way a browser does, and never lets Files hold a folder name', () => {
    const first = (name: string, inFiles: boolean, n: number) => [...take(candidateNames(name, inFiles), n)];
    expect(first('report.csv', false, 3)).toEqual(['report.csv', 'report (1).csv', 'report (2).csv']);
    expect(first('README', false, 2)).toEqual(['README', 'README (1)']);
    expect(first('.env', false, 2)).toEqual(['.env', '.env (1)']);
    expect(first('screenshots', true, 2)).toEqual(['screenshots (1)', 'screenshots (2)']);
    expect(first('downloads', false, 1)).toEqual(['downloads']);
  });
});

function* take<T>(items: Iterable<T>, n: number): Generator<T> {
  let i = 0;
  for (const item of items) {
    if (i++ >= n) {
      return;
    }
    yield item;
  }
}

describe('signed links', () => {
  it('verify until they expire, and only untouched', () => {
    let now = 1_800_000_000_000;
    const signer = new LinkSigner('a-shared-secret-of-length', 60, () => now);
    const { exp, sig } = signer.sign('files', 'ws', 'a.pdf');
    expect(() => signer.verify('files', 'ws', 'a.pdf', String(exp), sig)).not.toThrow();
    expect(() => signer.verify('files', 'ws', 'b.pdf', String(exp), sig)).toThrow('not valid');
    expect(() => signer.verify('screenshots', 'ws', 'a.pdf', String(exp), sig)).toThrow('not valid');
    expect(() => signer.verify('files', 'other', 'a.pdf', String(exp), sig)).toThrow('not valid');
    expect(() => signer.verify('files', 'ws', 'a.pdf', String(exp + 1), sig)).toThrow('not valid');
    expect(() => signer.verify('files', 'ws', 'a.pdf', String(exp), `${sig}=`)).toThrow('not valid');
    expect(() => signer.verify('files', 'ws', 'a.pdf', undefined, sig)).toThrow('not valid');
    now += 61_000;
    expect(() => signer.verify('files', 'ws', 'a.pdf', String(exp), sig)).toThrow('expired');
  });

  it('verify on another replica that shares the secret, and nowhere else', () => {
    const link = new LinkSigner('a-shared-secret-of-length', 60).sign('files', 'ws', 'a.pdf');
    expect(() =>
      new LinkSigner('a-shared-secret-of-length', 60).verify('files', 'ws', 'a.pdf', String(link.exp), link.sig),
    ).not.toThrow();
    expect(() =>
      new LinkSigner('another-secret-entirely!', 60).verify('files', 'ws', 'a.pdf', String(link.exp), link.sig),
    ).toThrow('not valid');
  });
});

describe('the Files service on disk', () => {
  let root: string;
  let files: Files;
  let grid: { gridId: string | undefined; downloads: boolean; asked: number; names: Record<string, string> };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'selenium-flow-files-unit-'));
    grid = { gridId: 'grid-1', downloads: true, asked: 0, names: { 'export.csv': 'fresh', screenshots: 'tricky' } };
    const downloads: DownloadsSource = {
      list: async () => {
        grid.asked += 1;
        return Object.entries(grid.names).map(([name, text]) => ({ name, size: text.length, created: new Date() }));
      },
      read: async (_id, name) => {
        grid.asked += 1;
        return grid.names[name] === undefined ? undefined : Buffer.from(grid.names[name]);
      },
      clear: async () => {
        grid.names = {};
      },
    };
    files = new Files({
      dataDir: root,
      downloads,
      links: new LinkSigner('unit-test-secret-xx', 60),
      linkBase: '',
      browserOf: async () =>
        grid.gridId === undefined ? undefined : { gridId: grid.gridId, downloads: grid.downloads },
    });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('moves a screenshot into Files without ever overwriting a kept file', async () => {
    await files.saveScreenshot('ws', 'shot', Buffer.from('kept earlier'));
    expect(await files.keep('ws', 'workspace://files/screenshots/shot.png')).toMatchObject({ name: 'shot.png' });
    await files.saveScreenshot('ws', 'shot', Buffer.from('new'));
    const kept = await files.keep('ws', 'workspace://files/screenshots/shot.png');
    expect(kept).toMatchObject({ name: 'shot (1).png', uri: 'workspace://files/shot%20(1).png' });
    expect(await readFile(join(root, 'ws/files/shot.png'), 'utf8')).toBe('kept earlier');
    expect(await readFile(join(root, 'ws/files/shot (1).png'), 'utf8')).toBe('new');
    expect(await readdir(join(root, 'ws/screenshots'))).toEqual([]);
    expect(await readdir(join(root, 'ws/.incoming'))).toEqual([]);
  });

  it('copies a download, replacing a same-named file, and lands a folder name beside itself', async () => {
    grid.names['export.csv'] = 'old';
    await files.keep('ws', 'workspace://files/downloads/export.csv');
    grid.names['export.csv'] = 'fresh';
    expect(await files.keep('ws', 'workspace://files/downloads/export.csv')).toMatchObject({ name: 'export.csv' });
    expect(await readFile(join(root, 'ws/files/export.csv'), 'utf8')).toBe('fresh');
    expect(await files.keep('ws', 'workspace://files/downloads/screenshots')).toMatchObject({
      name: 'screenshots (1)',
    });
    grid.gridId = undefined;
    await expect(files.keep('ws', 'workspace://files/downloads/export.csv')).rejects.toThrow('no live browser');
  });

  it('lists newest first, with a signed url per entry, and says when there is no browser', async () => {
    await files.saveScreenshot('ws', 'old', Buffer.from('1'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await files.saveScreenshot('ws', 'new', Buffer.from('2'));
    const shots = await files.folder('ws', 'screenshots');
    expect(shots.files.map((f) => f.name)).toEqual(['new.png', 'old.png']);
    expect(shots.files[0]?.url).toMatch(/^\/files\/signed\/screenshots\/ws\/new\.png\?exp=\d+&sig=[\w-]+$/);
    grid.gridId = undefined;
    expect(await files.folder('ws', 'downloads')).toMatchObject({ browser: false, count: 0, files: [] });
  });

  it('says how to turn downloads on where the Grid keeps none, and never asks it', async () => {
    grid.downloads = false;
    const sentence =
      /does not offer managed downloads.*--enable-managed-downloads true.*SE_NODE_ENABLE_MANAGED_DOWNLOADS=true/;
    const listing = await files.folder('ws', 'downloads');
    expect(listing).toMatchObject({ browser: true, count: 0, files: [] });
    expect(listing.downloads_off).toMatch(sentence);
    expect((await files.root('ws')).folders?.find((f) => f.name === 'downloads')?.downloads_off).toMatch(sentence);
    expect((await files.sections('ws')).downloads_off).toMatch(sentence);
    const kept = files.keep('ws', 'workspace://files/downloads/export.csv');
    await expect(kept).rejects.toBeInstanceOf(DownloadsOff);
    await expect(kept).rejects.toThrow(sentence);
    await expect(files.readUri('ws', 'workspace://files/downloads/export.csv')).rejects.toBeInstanceOf(DownloadsOff);
    await expect(files.clearDownloads('ws')).rejects.toBeInstanceOf(DownloadsOff);
    expect(await files.names('ws', 'downloads')).toEqual([]);
    expect(grid.asked).toBe(0);
    grid.downloads = true;
    expect((await files.folder('ws', 'downloads')).downloads_off).toBeUndefined();
  });

  it('clears screenshots and deletes one file in Files, nothing else', async () => {
    await files.saveScreenshot('ws', 'a', Buffer.from('1'));
    await files.savePrint('ws', 'keep', Buffer.from('2'));
    await files.savePrint('ws', 'drop', Buffer.from('3'));
    expect(await files.clearScreenshots('ws')).toEqual({ workspace: 'ws', cleared: 1, names: ['a.png'] });
    expect(await files.deleteFile('ws', 'drop.pdf')).toEqual({ workspace: 'ws', deleted: 'drop.pdf' });
    await expect(files.deleteFile('ws', 'drop.pdf')).rejects.toThrow('nothing was deleted');
    expect((await files.root('ws')).files.map((f) => f.name)).toEqual(['keep.pdf']);
  });

  it('refuses a caller without a workspace, and a server without a data directory', async () => {
    await expect(files.root(undefined)).rejects.toThrow('X-Workspace');
    const off = new Files({
      dataDir: undefined,
      downloads: { list: async () => [], read: async () => undefined, clear: async () => undefined },
      links: new LinkSigner(undefined, 60),
      linkBase: '',
      browserOf: async () => undefined,
    });
    await expect(off.saveScreenshot('ws', undefined, Buffer.from('x'))).rejects.toThrow('FLOW_DATA_DIR');
    await expect(off.keep('ws', 'workspace://files/screenshots/a.png')).rejects.toThrow('FLOW_DATA_DIR');
  });
});
