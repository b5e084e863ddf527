import type { FunctionResponsePart, Part } from '@google/genai';
import type { ImageBlock, ToolResultBlock } from '@yourtool/core';

/**
 * Image media types Gemini takes nested in a function response (Gemini API function calling,
 * "Multimodal function responses", Gemini 3 models: PNG, JPEG, WebP, as `inlineData`). Other
 * images a model takes (HEIC, HEIF, a `fileData` URL) go after the turn's function responses.
 */
export const FUNCTION_RESPONSE_IMAGE_MEDIA_TYPES: readonly string[] = [
  'image/png',
  'image/jpeg',
  'image/webp',
];

/** An image as a part of a turn: `inlineData` for base64 data, `fileData` for a URL. */
export function encodeImage(image: ImageBlock): Part {
  if (image.source.kind === 'url') {
    return { fileData: { fileUri: image.source.data, mimeType: image.media_type } };
  }
  return { inlineData: { mimeType: image.media_type, data: image.source.data } };
}

/** Whether `image` may go nested in a function response: base64 data of a listed type. */
function nestable(image: ImageBlock): boolean {
  return (
    image.source.kind === 'base64' && FUNCTION_RESPONSE_IMAGE_MEDIA_TYPES.includes(image.media_type)
  );
}

/** The function call a tool result answers, as it went on the wire. */
export interface AnsweredCall {
  /** The call's wire id; absent where the target takes no ids (Vertex AI, decision 0170). */
  id?: string | undefined;
  /** The call's wire name. */
  name: string;
}

/** One tool result on the wire (decision 0151). */
export interface EncodedToolResult {
  /**
   * The result's `functionResponse` part: `response.output` (`response.error` when
   * `is_error`) holding its text, and, for a model that takes multimodal function responses,
   * its PNG, JPEG and WebP images nested in `parts`.
   */
  response: Part;
  /**
   * The result's other images, after a text part naming the call they came from, to follow
   * every function response of the turn: the turn answering a parallel call holds one
   * function response per call before anything else. Empty when there are none.
   */
  trailing: Part[];
}

/**
 * Encodes a tool result as the `functionResponse` answering `call`. Its images go nested in
 * the function response where `multimodal` says the model takes that (Gemini 3: PNG, JPEG and
 * WebP data), and into {@link EncodedToolResult.trailing} otherwise (Gemini 2.x refuses nested
 * media; HEIC, HEIF and URL images are not documented there).
 */
export function encodeToolResult(
  block: ToolResultBlock,
  call: AnsweredCall,
  multimodal: boolean,
): EncodedToolResult {
  const text = block.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const nested: FunctionResponsePart[] = [];
  const trailing: Part[] = [];
  for (const inner of block.content) {
    if (inner.type !== 'image') continue;
    if (multimodal && nestable(inner)) {
      nested.push({ inlineData: { mimeType: inner.media_type, data: inner.source.data } });
    } else {
      trailing.push(encodeImage(inner));
    }
  }
  if (trailing.length > 0) {
    const which = call.id === undefined ? call.name : `${call.name} (${call.id})`;
    trailing.unshift({ text: `Image output of function call ${which}:` });
  }
  return {
    response: {
      functionResponse: {
        ...(call.id === undefined ? {} : { id: call.id }),
        name: call.name,
        response: block.is_error ? { error: text } : { output: text },
        ...(nested.length > 0 ? { parts: nested } : {}),
      },
    },
    trailing,
  };
}
