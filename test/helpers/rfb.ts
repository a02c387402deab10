import WebSocket from 'ws';

/**
 * A minimal RFB 3.8 viewer over a websocket (what noVNC speaks through the live tunnel): it
 * greets, takes "None" security (the server answers the node's password itself, never the
 * viewer), and reads one raw rectangle of the screen. Enough to tell a screen that shows a
 * browser from an empty one.
 */
export interface ScreenRead {
  width: number;
  height: number;
  /** how many different pixel values the rectangle holds: 1 is a blank screen */
  colours: number;
}

const TIMEOUT_MS = 20_000;

export async function readScreen(url: string, region = { x: 0, y: 0, width: 640, height: 400 }): Promise<ScreenRead> {
  const ws = new WebSocket(url);
  let buffer = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let failed: Error | undefined;
  ws.on('message', (data: Buffer) => {
    buffer = Buffer.concat([buffer, data]);
    wake?.();
  });
  ws.on('error', (error) => {
    failed = error;
    wake?.();
  });
  ws.on('close', (code, reason) => {
    failed ??= new Error(`the tunnel closed (${code} ${reason.toString()})`);
    wake?.();
  });
  const deadline = Date.now() + TIMEOUT_MS;
  const take = async (n: number): Promise<Buffer> => {
    while (buffer.length < n) {
      if (failed) {
        throw failed;
      }
      if (Date.now() > deadline) {
        throw new Error(`no ${n} bytes from the VNC server within ${TIMEOUT_MS / 1000} s`);
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    const head = buffer.subarray(0, n);
    buffer = buffer.subarray(n);
    return head;
  };
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    const version = (await take(12)).toString('latin1');
    if (!version.startsWith('RFB 003.')) {
      throw new Error(`not an RFB greeting: ${JSON.stringify(version)}`);
    }
    ws.send(Buffer.from('RFB 003.008\n', 'latin1'));
    const count = (await take(1))[0] ?? 0;
    const types = [...(await take(count))];
    if (!types.includes(1)) {
      throw new Error(`the viewer is offered no "None" security (offered ${types.join(',')})`);
    }
    ws.send(Buffer.from([1]));
    if ((await take(4)).readUInt32BE(0) !== 0) {
      throw new Error('the VNC server refused the security handshake');
    }
    ws.send(Buffer.from([1])); // ClientInit: shared
    const init = await take(24);
    const width = init.readUInt16BE(0);
    const height = init.readUInt16BE(2);
    const bytesPerPixel = (init[4] ?? 32) / 8;
    await take(init.readUInt32BE(20)); // the desktop's name
    // SetEncodings: Raw only.
    ws.send(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]));
    const request = Buffer.alloc(10);
    request.writeUInt8(3, 0);
    request.writeUInt8(0, 1); // not incremental: the whole rectangle
    request.writeUInt16BE(region.x, 2);
    request.writeUInt16BE(region.y, 4);
    request.writeUInt16BE(Math.min(region.width, width - region.x), 6);
    request.writeUInt16BE(Math.min(region.height, height - region.y), 8);
    ws.send(request);
    const pixels = new Set<string>();
    for (;;) {
      const type = (await take(1))[0];
      if (type === 0) {
        break;
      }
      if (type === 2) {
        continue; // Bell
      }
      if (type === 3) {
        await take(3);
        await take((await take(4)).readUInt32BE(0)); // ServerCutText
        continue;
      }
      throw new Error(`unexpected RFB server message ${String(type)}`);
    }
    await take(1);
    const rects = (await take(2)).readUInt16BE(0);
    for (let i = 0; i < rects; i += 1) {
      const head = await take(12);
      const w = head.readUInt16BE(4);
      const h = head.readUInt16BE(6);
      if (head.readInt32BE(8) !== 0) {
        throw new Error('the VNC server answered an encoding other than Raw');
      }
      const data = await take(w * h * bytesPerPixel);
      for (let p = 0; p < data.length && pixels.size < 1000; p += bytesPerPixel) {
        pixels.add(data.subarray(p, p + bytesPerPixel).toString('hex'));
      }
    }
    return { width, height, colours: pixels.size };
  } finally {
    ws.close();
  }
}
