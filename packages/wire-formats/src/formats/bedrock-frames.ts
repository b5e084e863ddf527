import { EventStreamCodec } from '@smithy/core/event-streams';

/**
 * The framing of Amazon Bedrock's ConverseStream body, `application/vnd.amazon.eventstream`:
 * binary messages (a length prelude, typed headers, a JSON payload, CRC32 checksums), each an
 * event (`:message-type: event`, its name in `:event-type`) or an exception
 * (`:message-type: exception`, its name in `:exception-type`). Encoded and decoded with the
 * codec the AWS SDK itself uses (`@smithy/core/event-streams`), so what is written here is what
 * `@aws-sdk/client-bedrock-runtime` reads.
 */

/** One ConverseStream event, as a fixture line or a renderer writes it before framing. */
export interface BedrockEventFrame {
  /** `messageStart`, `contentBlockStart`, `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`. */
  readonly event: string;
  /** The event's JSON payload (e.g. `{ "contentBlockIndex": 0, "delta": { "text": "Hi" } }`). */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** An exception sent inside a ConverseStream body (the SDK's iterator throws it). */
export interface BedrockExceptionFrame {
  /** `throttlingException`, `modelStreamErrorException`, `validationException`, ... */
  readonly exception: string;
  /** Usually `{ "message": "..." }`. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** A frame of a ConverseStream body, readable in review before it is encoded. */
export type BedrockFrame = BedrockEventFrame | BedrockExceptionFrame;

/** The content type of a ConverseStream body. */
export const BEDROCK_EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

// the codec's (toUtf8, fromUtf8): bytes → text, text → bytes
const codec = new EventStreamCodec(
  (bytes: Uint8Array) => utf8Decoder.decode(bytes),
  (text: string) => utf8Encoder.encode(text),
);

const header = (value: string) => ({ type: 'string' as const, value });

/** Encodes one frame as the bytes of an event-stream message. */
export function encodeBedrockFrame(frame: BedrockFrame): Uint8Array {
  const kind: Record<string, ReturnType<typeof header>> = 'event' in frame
    ? { ':message-type': header('event'), ':event-type': header(frame.event) }
    : { ':message-type': header('exception'), ':exception-type': header(frame.exception) };
  return codec.encode({
    headers: { ...kind, ':content-type': header('application/json') },
    body: utf8Encoder.encode(JSON.stringify(frame.payload)),
  });
}

/**
 * Decodes the bytes of one event-stream message back into its frame. Throws a `TypeError`
 * naming what is wrong when the bytes are not one whole message of an event or an exception
 * with a JSON object payload (a bad checksum, a length that does not match, a missing header).
 */
export function decodeBedrockFrame(bytes: Uint8Array): BedrockFrame {
  let message: ReturnType<typeof codec.decode>;
  try {
    message = codec.decode(bytes);
  } catch (error) {
    throw new TypeError(`event-stream frame: ${(error as Error).message}`);
  }
  const text = (name: string): string | undefined => {
    const value = message.headers[name];
    return value?.type === 'string' ? value.value : undefined;
  };
  let payload: unknown;
  try {
    payload = JSON.parse(utf8Decoder.decode(message.body));
  } catch (error) {
    throw new TypeError(
      `event-stream frame: the payload is not JSON (${(error as Error).message})`,
    );
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new TypeError('event-stream frame: the payload is not a JSON object');
  }
  const record = payload as Record<string, unknown>;
  const type = text(':message-type');
  const event = text(':event-type');
  if (type === 'event' && event) return { event, payload: record };
  const exception = text(':exception-type');
  if (type === 'exception' && exception) return { exception, payload: record };
  throw new TypeError(
    `event-stream frame: ":message-type" is ${type ?? 'missing'}; expected "event" with ":event-type" or "exception" with ":exception-type"`,
  );
}
