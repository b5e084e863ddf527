import { Buffer } from 'node:buffer';
import { imageBlockViolations } from '@yourtool/core';
import { parseBlock } from './block-schema.js';

/** Image formats recognised by their first bytes, for a declared type the data contradicts. */
const SIGNATURES: ReadonlyArray<{ media_type: string; matches(head: Buffer): boolean }> = [
  {
    media_type: 'image/png',
    matches: (h) => h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])),
  },
  { media_type: 'image/jpeg', matches: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  { media_type: 'image/gif', matches: (h) => /^GIF8[79]a/.test(h.toString('latin1', 0, 6)) },
  {
    media_type: 'image/webp',
    matches: (h) => h.toString('latin1', 0, 4) === 'RIFF' && h.toString('latin1', 8, 12) === 'WEBP',
  },
];

/** Why base64 data contradicts its declared media type (a PNG declared as JPEG), or null. */
function signatureProblem(data: string, media_type: string): string | null {
  const head = Buffer.from(data.slice(0, 24), 'base64');
  const found = SIGNATURES.find((s) => s.matches(head));
  if (!found || found.media_type === media_type) return null;
  if (!SIGNATURES.some((s) => s.media_type === media_type)) return null;
  return `source.data holds ${found.media_type} data but media_type says ${media_type}`;
}

/**
 * Why an image block of a user message cannot be stored for providers, or null when it can:
 * core's schema (a source kind, non-empty data, an IANA media type), then core's image rules
 * (an image media type, standard base64, an http(s) URL: `imageBlockViolations`, the check
 * every request gets), then base64 data that does not contradict its media type (PNG, JPEG,
 * GIF and WebP are recognised by their first bytes). Which image types a model takes is
 * routing's check, not this one.
 */
export function imageProblem(block: Record<string, unknown>): string | null {
  if (block.media_type === undefined || block.media_type === '')
    return 'media_type is missing (the IANA type of the image, such as image/png)';
  const parsed = parseBlock(block);
  if (!parsed.ok) return `${parsed.path}: ${parsed.message}`;
  if (parsed.block.type !== 'image') return 'not an image block';
  const [violation] = imageBlockViolations(parsed.block, '');
  if (violation) return `${violation.path.replace(/^\./, '')}: ${violation.message}`;
  const { source, media_type } = parsed.block;
  return source.kind === 'base64' ? signatureProblem(source.data, media_type) : null;
}
