// Preloaded (`node --import`) into a server the bench starts to see where its first call goes
// (bench/lib/cold-opens.ts): one stderr line per HTTP request the process makes, with the time
// from sending it to the end of its answer. The Grid's time inside our call is then known,
// and what is left is ours. Paths only: a session id is a run of hex, written as <id>.
import dc from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const started = new WeakMap();
dc.subscribe('http.client.request.start', ({ request }) => started.set(request, performance.now()));
dc.subscribe('http.client.response.finish', ({ request, response }) => {
  response.once('end', () => {
    const ms = performance.now() - (started.get(request) ?? performance.now());
    const path = String(request.path).replace(/[0-9a-f]{32}/g, '<id>');
    process.stderr.write(`grid-request ${request.method} ${path} ${ms.toFixed(2)}\n`);
  });
});
