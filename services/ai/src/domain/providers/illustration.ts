import { createHash } from 'node:crypto';
import * as PImage from 'pureimage';
import { CONTENT_POS, partOfSpeech, tokenize } from '../language/nlp';
import type { RenderedImage } from './ai-provider';
import { encodePng } from './png-encoder';

export const ILLUSTRATION_SIZE = 512;

/** A small deterministic generator seeded from the description: same description, same picture. */
function seededRandom(seed: Buffer): () => number {
  let state = seed.readUInt32LE(0) || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const hsl = (h: number, s: number, l: number) => {
  // pureimage understands hex colours; convert HSL → RGB hex.
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
};

function fillRows(data: Uint8Array, width: number, fromRow: number, toRow: number, hex: string) {
  const rgba = [
    parseInt(hex.slice(1, 3), 16),
    parseInt(hex.slice(3, 5), 16),
    parseInt(hex.slice(5, 7), 16),
    255,
  ];
  for (let i = fromRow * width * 4; i < toRow * width * 4; i += 4) data.set(rgba, i);
}

/**
 * Renders a PNG "illustration" of a description offline (pure-JS pureimage): a sky and ground in
 * colours derived from the text, and one shape per content word of the description (nouns round,
 * verbs angular, descriptive words as bands), laid out deterministically. It is an honest abstract
 * picture, not a depiction: the local provider has no image model.
 */
export function renderIllustration(description: string): RenderedImage {
  const size = ILLUSTRATION_SIZE;
  const digest = createHash('sha256').update(description).digest();
  const rand = seededRandom(digest);
  const hue = digest[4]! * (360 / 256);
  const img = PImage.make(size, size);
  const ctx = img.getContext('2d');

  // Large opaque areas are written straight into the RGBA buffer: pureimage composites per pixel.
  fillRows(img.data, size, 0, Math.round(size * 0.7), hsl(hue, 0.55, 0.85));
  fillRows(img.data, size, Math.round(size * 0.7), size, hsl((hue + 120) % 360, 0.35, 0.55));
  ctx.fillStyle = hsl(45, 0.9, 0.6);
  ctx.beginPath();
  ctx.arc(size * (0.15 + 0.7 * rand()), size * 0.15, size * 0.07, 0, Math.PI * 2);
  ctx.fill();

  const words = tokenize(description)
    .tokens.map((t) => ({ pos: partOfSpeech(t.tags), normal: t.normal }))
    .filter((w) => CONTENT_POS.has(w.pos))
    .slice(0, 10);
  words.forEach((w, i) => {
    const x = size * (0.1 + 0.8 * rand());
    const y = size * (0.3 + 0.5 * rand());
    const r = size * (0.04 + 0.08 * rand());
    ctx.fillStyle = hsl((hue + 40 * (i + 1) + 360 * rand()) % 360, 0.65, 0.5);
    ctx.beginPath();
    if (w.pos === 'noun') {
      ctx.arc(x, y, r, 0, Math.PI * 2);
    } else if (w.pos === 'verb') {
      ctx.moveTo(x, y - r);
      ctx.lineTo(x + r, y + r);
      ctx.lineTo(x - r, y + r);
      ctx.closePath();
    } else {
      ctx.rect(x - r * 1.5, y - r / 3, r * 3, (r * 2) / 3);
    }
    ctx.fill();
  });

  return { contentType: 'image/png', data: encodePng(img.data, size, size), width: size, height: size };
}
