import { afterAll, beforeAll, it, inject } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';
const site = inject('siteUrl');
let running: RunningServer;
const c = async (tool: string, body: Record<string, unknown> = {}) => {
  const r = await rest(running.url, `/browser/${tool}`, body, { 'X-Workspace': 'scratch' });
  console.log(tool, JSON.stringify(body).slice(0, 100), '=>', r.status, JSON.stringify(r.body).slice(0, 300));
  return r;
};
beforeAll(async () => { running = await startServer(); });
afterAll(async () => { await c('end-browser'); await running.close(); });
it('scratch', async () => {
  await c('navigate', { url: `${site}/upload.html` });
  await c('upload-file', { selector: { css: '#file' }, text: 'hello', filename: 'n.txt' });
  await new Promise((r) => setTimeout(r, 1000));
  await c('execute-script', { script: "const f = document.getElementById('file'); return [f.value, f.files.length, document.getElementById('file-name').textContent, document.getElementById('file-content').textContent]" });
  await c('navigate', { url: `${site}/table.html` });
  await c('execute-script', { script: "const r = document.getElementById('data').getBoundingClientRect(); return [r.width, r.height, innerWidth, innerHeight, devicePixelRatio]" });
  const r = await c('screenshot', { selector: { css: '#data' } });
  const b = Buffer.from(r.body.data as string, 'base64'); console.log(b.readUInt32BE(16), b.readUInt32BE(20));
});
