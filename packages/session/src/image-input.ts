import { Buffer } from 'node:buffer';
import { parseBlock } from './block-schema.js';

/** A character outside the standard base64 alphabet (padding is checked separately). */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

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

/** Why `data` is not standard base64 of at least one byte, or null when it is. */
function base64Problem(data: string): string | null {
  if (/^data:/i.test(data))
    return 'source.data is a data: URL; pass only the base64 after the comma, and its type as media_type';
  const bad = NOT_BASE64.exec(data);
  if (bad) {
    const shown = /\s/.test(bad[0]) ? 'whitespace' : JSON.stringify(bad[0]);
    return `source.data is not base64: ${shown} at offset ${bad.index}`;
  }
  const body = data.replace(/={1,2}$/, '');
  if (body.length === 0) return 'source.data decodes to no bytes';
  if (body.includes('=')) return `source.data is not base64: "=" at offset ${body.indexOf('=')}`;
  if (body !== data && data.length % 4 !== 0)
    return `source.data is not base64: its padded length ${data.length} is not a multiple of 4`;
  if (body.length % 4 === 1)
    return `source.data is not base64: its length ${body.length} leaves a lone character at the end`;
  return null;
}

/** Why base64 data contradicts its declared media type (a PNG declared as JPEG), or null. */
function signatureProblem(data: string, media_type: string): string | null {
  const head = Buffer.from(data.slice(0, 24), 'base64');
  const found = SIGNATURES.find((s) => s.matches(head));
  if (!found || found.media_type === media_type) return null;
  if (!SIGNATURES.some((s) => s.media_type === media_type)) return null;
  return `source.data holds ${found.media_type} data but media_type says ${media_type}`;
}

/** Why `data` is not an http(s) URL, or null. */
function urlProblem(data: string): string | null {
  let url: URL;
  try {
    url = new URL(data);
  } catch {
    return `source.data is not a URL: ${JSON.stringify(data.slice(0, 80))}`;
  }
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? null
    : `source.data must be an http or https URL, not ${url.protocol}`;
}

/**
 * Why an image block of a user message cannot be stored for providers, or null when it can:
 * core's schema (a source kind, non-empty data, an IANA media type), a media type that is an
 * image type, base64 data that is standard base64 of at least one byte and does not contradict
 * its media type (PNG, JPEG, GIF and WebP are recognised by their first bytes), a URL that is
 * http or https. Which image types a model takes is routing's check, not this one.
 */
export function imageProblem(block: Record<string, unknown>): string | null {
  if (block.media_type === undefined || block.media_type === '')
    return 'media_type is missing (the IANA type of the image, such as image/png)';
  const parsed = parseBlock(block);
  if (!parsed.ok) return `${parsed.path}: ${parsed.message}`;
  if (parsed.block.type !== 'image') return 'not an image block';
  const { source, media_type } = parsed.block;
  if (!media_type.startsWith('image/'))
    return `media_type ${media_type} is not an image type (image/png, image/jpeg, ...)`;
  if (source.kind === 'base64')
    return base64Problem(source.data) ?? signatureProblem(source.data, media_type);
  if (source.kind === 'url') return urlProblem(source.data);
  return null;
}
