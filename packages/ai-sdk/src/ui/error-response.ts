import { ChatRequestError, RegenerateRefusedError } from './errors.js';

/**
 * The HTTP answer to a request the bridge refuses: 400 for a bad body, 409 for a regenerate,
 * 500 otherwise; the body is `{ error: { code, message } }`, the message only for our own
 * request errors (a server error's text stays on the server).
 */
export function errorResponse(error: unknown): Response {
  const known = error instanceof ChatRequestError || error instanceof RegenerateRefusedError;
  const status = error instanceof ChatRequestError ? 400 : known ? 409 : 500;
  const body = known
    ? { error: { code: error.code, message: error.message } }
    : { error: { code: 'internal', message: 'An error occurred.' } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
