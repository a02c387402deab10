import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../src/config.js';
import { createServer } from '../src/server.js';
import { startEmbeddedGrid } from '../src/grid/embedded.js';
import { startFixtureSite } from '../test/fixtures/site.js';
process.env.SE_OFFLINE='true'; process.env.SE_AVOID_STATS='true';
const t0 = Date.now();
const grid = await startEmbeddedGrid();
console.log('grid', Date.now()-t0, grid.url);
const site = await startFixtureSite();
const server = createServer(loadConfig({}, { PORT: '0', LOG_LEVEL: 'silent' }), grid.url);
const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
try {
  for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
    const c = new Client({ name: 'b', version: '1' }, { versionNegotiation: { mode } });
    const tr = new StreamableHTTPClientTransport(new URL(`${url}/mcp?workspace=probe`));
    await c.connect(tr);
    console.log(JSON.stringify(mode), 'proto', tr.protocolVersion, (c as unknown as {getNegotiatedProtocolVersion?: () => string}).getNegotiatedProtocolVersion?.());
    const tl = await c.listTools();
    console.log('tools', tl.tools.length, JSON.stringify(tl).length);
    for (let i = 0; i < 3; i++) { const s = performance.now(); await c.listTools(); console.log('list ms', (performance.now()-s).toFixed(1)); }
    let s = performance.now();
    const r = await c.callTool({ name: 'navigate', arguments: { url: `${site.url}/login.html` } });
    console.log('nav', (performance.now()-s).toFixed(0), JSON.stringify(r).slice(0, 300));
    s = performance.now();
    const r2 = await c.callTool({ name: 'extract', arguments: { selector: { css: 'h1' } } });
    console.log('extract', (performance.now()-s).toFixed(0), JSON.stringify(r2).slice(0, 300));
    await c.callTool({ name: 'end_browser', arguments: {} });
    await c.close();
  }
} finally {
  await server.close(); await site.close(); await grid.stop();
}
