import { describe, expect, it } from 'vitest';
import { readImageInfo, sniffImageType } from '../../src/modules/images/image-format.js';
import { makePng } from '../support/png-fixture.js';

const u16be = (n: number) => [n >> 8, n & 0xff];
const u16le = (n: number) => [n & 0xff, n >> 8];
const bytes = (...parts: Array<number[] | string>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

/** A JPEG header: SOI, an APP0 segment, a DHT (0xC4, which is not a frame), then SOF2 with the size. */
function jpeg(width: number, height: number) {
  return bytes(
    [0xff, 0xd8],
    [0xff, 0xe0, ...u16be(16)],
    'JFIF\0',
    Array(9).fill(0),
    [0xff, 0xc4, ...u16be(4), 0, 0],
    [0xff, 0xc2, ...u16be(11), 8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0],
  );
}
const riff = (chunk: string, body: number[]) => bytes('RIFF', [0, 0, 0, 0], 'WEBP', chunk, [0, 0, 0, 0], body, Array(16).fill(0));

describe('image types and sizes from the bytes', () => {
  it('reads PNG, GIF, JPEG and the three WebP forms', () => {
    expect(readImageInfo(makePng(300, 7))).toEqual({ type: 'image/png', width: 300, height: 7 });
    expect(readImageInfo(bytes('GIF89a', [...u16le(640), ...u16le(480)], Array(8).fill(0)))).toEqual({
      type: 'image/gif',
      width: 640,
      height: 480,
    });
    expect(readImageInfo(jpeg(1920, 1080))).toEqual({ type: 'image/jpeg', width: 1920, height: 1080 });
    // VP8: frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    expect(readImageInfo(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(800), ...u16le(600)]))).toEqual({
      type: 'image/webp',
      width: 800,
      height: 600,
    });
    // VP8L: signature 0x2f, then width-1 in 14 bits and height-1 in the next 14.
    const w = 99,
      h = 49;
    const packed = w | (h << 14);
    expect(readImageInfo(riff('VP8L', [0x2f, packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff, (packed >> 24) & 0xff]))).toEqual({
      type: 'image/webp',
      width: 100,
      height: 50,
    });
    // VP8X: flags and reserved (4 bytes), then canvas width-1 and height-1 in 24 bits each.
    expect(readImageInfo(riff('VP8X', [0, 0, 0, 0, 0xff, 0x0f, 0, 0x3f, 0, 0]))).toEqual({ type: 'image/webp', width: 4096, height: 64 });
  });

  it('refuses everything else, and images whose header is cut short', () => {
    for (const text of ['<svg/>', '%PDF-1.4', 'BM6', 'II*\0', '']) expect(readImageInfo(Buffer.from(text))).toBeNull();
    expect(readImageInfo(makePng(5, 5).subarray(0, 20))).toBeNull();
    expect(readImageInfo(jpeg(10, 10).subarray(0, 30))).toBeNull();
    expect(readImageInfo(bytes([0xff, 0xd8, 0xff, 0xda, 0, 4, 0, 0]))).toBeNull();
    expect(readImageInfo(bytes('GIF89a', [0, 0, 0, 0], Array(4).fill(0)))).toBeNull(); // zero width
    expect(sniffImageType(jpeg(1, 1))).toBe('image/jpeg');
  });
});
