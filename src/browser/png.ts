import { pngjs } from '../lazy.js';

/**
 * PNG crops and downscales in this process, for browsers whose screenshot commands can do
 * neither (Firefox: WebDriver has no clip or scale, and Chrome's DevTools is Chrome's alone).
 */

export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The part of `png` (base64) inside `rect`, clamped to the image. */
export function cropPng(base64: string, rect: PixelRect): string {
  const { PNG } = pngjs();
  const source = PNG.sync.read(Buffer.from(base64, 'base64'));
  const x = clamp(Math.round(rect.x), 0, source.width - 1);
  const y = clamp(Math.round(rect.y), 0, source.height - 1);
  const width = clamp(Math.round(rect.width), 1, source.width - x);
  const height = clamp(Math.round(rect.height), 1, source.height - y);
  const target = new PNG({ width, height });
  PNG.bitblt(source, target, x, y, width, height, 0, 0);
  return PNG.sync.write(target).toString('base64');
}

/** `png` (base64) scaled down to `width` pixels wide (never up), each pixel the average of the box it covers. */
export function scalePngToWidth(base64: string, width: number): string {
  const { PNG } = pngjs();
  const source = PNG.sync.read(Buffer.from(base64, 'base64'));
  if (width >= source.width) {
    return base64;
  }
  const ratio = source.width / width;
  const height = Math.max(1, Math.round(source.height / ratio));
  const target = new PNG({ width, height });
  for (let ty = 0; ty < height; ty += 1) {
    const y0 = Math.floor(ty * ratio);
    const y1 = Math.min(source.height, Math.max(y0 + 1, Math.floor((ty + 1) * ratio)));
    for (let tx = 0; tx < width; tx += 1) {
      const x0 = Math.floor(tx * ratio);
      const x1 = Math.min(source.width, Math.max(x0 + 1, Math.floor((tx + 1) * ratio)));
      const sum = [0, 0, 0, 0];
      for (let sy = y0; sy < y1; sy += 1) {
        for (let sx = x0; sx < x1; sx += 1) {
          const at = (sy * source.width + sx) * 4;
          for (let c = 0; c < 4; c += 1) {
            sum[c] = (sum[c] ?? 0) + (source.data[at + c] ?? 0);
          }
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const out = (ty * width + tx) * 4;
      for (let c = 0; c < 4; c += 1) {
        target.data[out + c] = Math.round((sum[c] ?? 0) / count);
      }
    }
  }
  return PNG.sync.write(target).toString('base64');
}

/** Width and height of a PNG (base64), read from its header. */
export function pngSize(base64: string): { width: number; height: number } {
  const header = Buffer.from(base64.slice(0, 44), 'base64');
  return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
