import { connect } from 'node:net';
import type { ScriptedResponse } from '../src/index.js';

/** A raw HTTP/1.1 request the capture sends: the loopback server answers whatever it is asked. */
const REQUEST =
  'POST /wire-golden HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Content-Length: 2\r\nConnection: close\r\n\r\n{}';

/** How long a stalled response must stay silent before the capture ends it, in ms. */
const STALL_QUIET_MS = 400;

/** How long any one response may take, in ms (a broken server fails the test, never hangs it). */
const RESPONSE_LIMIT_MS = 10_000;

/**
 * The exact bytes a server at `url` sends for one request (status line, headers, chunked framing,
 * body), read from the socket. The `Date` header, the only part that changes between runs, is
 * replaced by a fixed value. A stalled response is read until it has been quiet for a while.
 */
export function captureRawResponse(url: string, expected: ScriptedResponse): Promise<string> {
  const { port } = new URL(url);
  const stalls = expected.type === 'stream' && expected.ending === 'stall';
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const parts: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(quiet);
      clearTimeout(limit);
      socket.destroy();
      resolve(
        Buffer.concat(parts)
          .toString('utf8')
          .replace(/\r\nDate: [^\r]*/i, '\r\nDate: -'),
      );
    };
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${RESPONSE_LIMIT_MS} ms`));
    }, RESPONSE_LIMIT_MS);
    socket.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      if (stalls) {
        clearTimeout(quiet);
        quiet = setTimeout(finish, STALL_QUIET_MS);
      }
    });
    socket.on('close', finish);
    socket.on('error', () => {
      // a hang-up or a destroyed stream: what arrived before it is the capture
    });
    socket.write(REQUEST);
  });
}
