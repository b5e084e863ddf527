import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChatRequestError } from './errors.js';

/** Reads a Node request's JSON body (up to `limitBytes`, default 1 MiB). */
export async function readJsonBody(req: IncomingMessage, limitBytes = 1 << 20): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > limitBytes) throw new ChatRequestError('body', `larger than ${limitBytes} bytes`);
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new ChatRequestError('body', 'expected JSON');
  }
}

/**
 * Writes a fetch `Response` (the bridge's) to a Node response, streaming its body; a client
 * that goes away cancels the body's reading (and so the turn, as a stop button does).
 */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => {
    if (!res.writableFinished) void reader.cancel();
  };
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } finally {
    res.off('close', onClose);
    res.end();
  }
}
