import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GridUnavailable } from '../../src/errors.js';
import { GridDownloads } from '../../src/grid/downloads.js';
import { BrowserGone } from '../../src/grid/failures.js';
import { Grid } from '../../src/grid/grid.js';

// The answers of the 4.48 Grid, recorded: asked right after a session ended, the router may still
// route to the node, which no longer has it (a Firefox session: 3 reads in 6). The real Grid
// cannot be made to lose that race on demand.
const NO_FILE_SYSTEM = {
  value: {
    error: 'unknown error',
    message:
      'Cannot find downloads file system for session id: s-1 — ensure downloads are enabled in the options class when requesting a session.',
  },
};
const GONE = {
  value: {
    error: 'invalid session id',
    message:
      'Unable to find session with ID: s-1. Session was removed (0 seconds ago), reason: session closed normally',
  },
};

let alive = false;
let server: Server;
let downloads: GridDownloads;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    if (req.url === '/session/s-1/window') {
      res.statusCode = alive ? 200 : 404;
      res.end(JSON.stringify(alive ? { value: 'w-1' } : GONE));
      return;
    }
    res.statusCode = 500;
    res.end(JSON.stringify(NO_FILE_SYSTEM));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  downloads = new GridDownloads(new Grid(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('managed downloads of a browser that ended a moment ago', () => {
  it('say the browser is gone, for a read as for a listing', async () => {
    alive = false;
    await expect(downloads.read('s-1', 'report.csv')).rejects.toBeInstanceOf(BrowserGone);
    await expect(downloads.list('s-1')).rejects.toBeInstanceOf(BrowserGone);
  });

  it('say the Grid refused when the browser still lives (a node without managed downloads)', async () => {
    alive = true;
    await expect(downloads.read('s-1', 'report.csv')).rejects.toBeInstanceOf(GridUnavailable);
    await expect(downloads.list('s-1')).rejects.toBeInstanceOf(GridUnavailable);
  });
});
