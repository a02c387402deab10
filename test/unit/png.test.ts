import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { cropPng, pngSize, scalePngToWidth } from '../../src/browser/png.js';

/** A PNG whose left half is red and right half blue, `width` × `height`. */
function halves(width: number, height: number): string {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 4;
      png.data.set(x < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], at);
    }
  }
  return PNG.sync.write(png).toString('base64');
}

function pixel(base64: string, x: number, y: number): number[] {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  const at = (y * png.width + x) * 4;
  return [...png.data.subarray(at, at + 4)];
}

describe('PNG crops and downscales (the Firefox screenshot path)', () => {
  it('crops the rectangle asked, clamped to the image', () => {
    const right = cropPng(halves(40, 20), { x: 25, y: 5, width: 10, height: 10 });
    expect(pngSize(right)).toEqual({ width: 10, height: 10 });
    expect(pixel(right, 0, 0)).toEqual([0, 0, 255, 255]);
    const beyond = cropPng(halves(40, 20), { x: 30, y: 10, width: 100, height: 100 });
    expect(pngSize(beyond)).toEqual({ width: 10, height: 10 });
  });

  it('scales down to the width asked, keeping the aspect and averaging each box', () => {
    const scaled = scalePngToWidth(halves(400, 200), 100);
    expect(pngSize(scaled)).toEqual({ width: 100, height: 50 });
    expect(pixel(scaled, 10, 10)).toEqual([255, 0, 0, 255]);
    expect(pixel(scaled, 90, 40)).toEqual([0, 0, 255, 255]);
    // 5 → 2 pixels: the second box holds one red and two blue pixels.
    const odd = scalePngToWidth(halves(5, 1), 2);
    expect(pngSize(odd)).toEqual({ width: 2, height: 1 });
    expect(pixel(odd, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(pixel(odd, 1, 0)).toEqual([85, 0, 170, 255]);
  });

  it('never scales up', () => {
    const small = halves(50, 10);
    expect(scalePngToWidth(small, 400)).toBe(small);
  });
});
