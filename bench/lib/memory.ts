import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use after a full collection: what is held, not where the sawtooth happens to be. */
export async function heapAfterGc(): Promise<number> {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return process.memoryUsage().heapUsed;
}
