import type { CanonicalRequest, ToolIdMap } from '@yourtool/core';

/** A canned reply of the send server: the body it answers a POST whose path contains `path`. */
export interface SendReply {
  /** A part of the request path that picks this reply (`/chat/completions`, `:generateContent`). */
  path: string;
  /** The reply's JSON text (one word of assistant text, non-streaming). */
  body: string;
}

/** Both callers of one provider, built against the send server's URL. */
export interface SendCallers {
  /** Our adapter's non-streaming call; resolves to the reply's text. */
  ours(request: CanonicalRequest, toolIdMap: ToolIdMap): Promise<string>;
  /**
   * Readies the raw SDK's call of the body our adapter sent last (its JSON text), untimed
   * (parsing it is not the SDK's cost); the returned call is timed and resolves to the reply's text.
   */
  baseline(body: string): () => Promise<string>;
  /** How many history entries (messages, contents, input items) a body holds. */
  entries(body: string): number;
}

/**
 * One provider of `send/<provider>/<N>`: the model it calls, the server's reply and the two
 * callers. One file per provider under `contenders/`, listed in `contenders/index.ts`.
 */
export interface SendContender {
  /** The scenario's provider segment: `send/<provider>/<N>`. */
  provider: string;
  /** The canonical model id of the requests. */
  model: string;
  /** What the server answers this provider's requests with. */
  reply: SendReply;
  /** Builds the callers; `url` is the server's origin (`http://127.0.0.1:<port>`). */
  open(url: string): SendCallers;
}
