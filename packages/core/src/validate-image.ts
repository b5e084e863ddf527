import type { ImageBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';
import { isSealedMessage } from './sealed.js';
import { SealedPrefixMemo } from './sealed-prefix.js';
import type { MessageViolation } from './validation-rules.js';

// The image rules (`image-media-type`, `image-source`): one block for `validateMessage`, and the
// sources of a whole request for the adapters, which check them before anything is sent.

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why image data is not standard, padded base64, naming the first character at fault; or null. */
function base64Problem(data: string): string | null {
  if (BASE64.test(data) && data.length % 4 === 0) return null;
  if (/^data:/i.test(data))
    return 'base64 image data must be the bare base64 text, without a "data:...;base64," prefix';
  const bad = /[^A-Za-z0-9+/=]|=(?!=?$)/.exec(data);
  if (bad) {
    const shown = /\s/.test(bad[0]) ? 'whitespace' : JSON.stringify(bad[0]);
    return `base64 image data is not valid base64: ${shown} at offset ${bad.index}`;
  }
  return `base64 image data is not valid base64: its length ${data.length} is not a multiple of 4`;
}

/** A value quoted for an error message, cut after 60 characters (image data can be megabytes). */
export function quoteStart(value: string): string {
  return value.length > 60
    ? `"${value.slice(0, 60)}..." (${value.length} characters)`
    : `"${value}"`;
}

/**
 * What is wrong with one image block for any provider: a media type that is not `image/…`,
 * base64 data that is not standard padded base64, a URL that is not http(s), a `file_ref`
 * outside the workspace (rules `image-media-type`, `image-source`). Paths start at `path`.
 */
export function imageBlockViolations(image: ImageBlock, path = 'image'): MessageViolation[] {
  const out: MessageViolation[] = [];
  checkImage(image, path, out);
  return out;
}

function checkImage(image: ImageBlock, path: string, out: MessageViolation[]): void {
  if (!image.media_type.startsWith('image/')) {
    out.push({
      rule: 'image-media-type',
      path: `${path}.media_type`,
      message: `"${image.media_type}" is not an image media type`,
    });
  }
  const { kind, data } = image.source;
  const at = `${path}.source.data`;
  if (kind === 'base64') {
    const problem = base64Problem(data);
    if (problem !== null) out.push({ rule: 'image-source', path: at, message: problem });
  } else if (kind === 'url') {
    let ok = false;
    try {
      const url = new URL(data);
      ok = url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      ok = false;
    }
    if (!ok)
      out.push({
        rule: 'image-source',
        path: at,
        message: `${quoteStart(data)} is not an http(s) URL`,
      });
  } else if (
    data.startsWith('/') ||
    /^[a-zA-Z]:[\\/]/.test(data) ||
    data.split(/[\\/]/).includes('..')
  ) {
    out.push({
      rule: 'image-source',
      path: at,
      message: `file_ref "${data}" must be a workspace-relative path without ".."`,
    });
  }
}

/**
 * The image sources of messages about to be sent that no provider could use: base64 data that
 * is not base64, a `url` that is not http(s), a `file_ref` outside the workspace (rule
 * `image-source`, as {@link validateMessage} reports it). Images inside tool results are
 * included. Paths start at `messages[i]`. Runs on every request before anything is sent, so it
 * looks at image blocks only.
 */
export function imageSourceViolations(messages: readonly Message[]): MessageViolation[] {
  const out: MessageViolation[] = [];
  // the sealed messages a history starts with, once they all passed, are not looked at again
  const prefix = imagesPassed.run(messages, checkSealedImages);
  for (let i = prefix.state.failed ? 0 : prefix.end; i < messages.length; i++) {
    const message = messages[i];
    // a sealed message cannot change: once its images passed, they pass (decision 0102)
    if (message === undefined || imagesChecked.has(message)) continue;
    const found = out.length;
    const content = message.content;
    for (let k = 0; k < content.length; k++) {
      const block = content[k];
      if (block?.type === 'image') {
        checkImage(block, `messages[${i}].content[${k}]`, out);
      } else if (block?.type === 'tool_result') {
        for (let j = 0; j < block.content.length; j++) {
          const inner = block.content[j];
          if (inner?.type === 'image')
            checkImage(inner, `messages[${i}].content[${k}].content[${j}]`, out);
        }
      }
    }
    if (out.length === found && isSealedMessage(message)) imagesChecked.add(message);
  }
  return out.filter((v) => v.rule === 'image-source');
}

/** Sealed messages whose images passed {@link imageSourceViolations}. */
const imagesChecked = new WeakSet<object>();

/** Whether every image of a history's sealed prefix passed (decision 0148). */
const imagesPassed = new SealedPrefixMemo(() => ({ failed: false }));

function checkSealedImages(state: { failed: boolean }, message: Message): void {
  if (state.failed || imagesChecked.has(message)) return;
  const found: MessageViolation[] = [];
  message.content.forEach((block, k) => {
    if (block.type === 'image') checkImage(block, `content[${k}]`, found);
    else if (block.type === 'tool_result') {
      for (const inner of block.content) if (inner.type === 'image') checkImage(inner, '', found);
    }
  });
  // only the source rule counts here (see imageSourceViolations' result)
  if (found.some((v) => v.rule === 'image-source')) state.failed = true;
  else if (found.length === 0) imagesChecked.add(message);
}
