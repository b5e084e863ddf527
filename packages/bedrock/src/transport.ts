import {
  type BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { type AdapterError, type CanonicalRequest, ServerError } from '@yourtool/core';
import type { AdapterContext, WireAttempt, WireTransport } from '@yourtool/core/adapter';
import { createBedrockClient } from './client.js';
import { bedrockSetupProblem } from './credentials.js';
import { toBedrockAdapterError } from './errors.js';
import type { BedrockDefaults } from './options.js';
import { BEDROCK } from './provider.js';
import { captureResponseBody, releasingStream } from './stream-release.js';
import type { BedrockChunk, BedrockReply, BedrockRequest } from './wire-types.js';

/**
 * The Bedrock adapter's transport: one `BedrockRuntimeClient` (see `createBedrockClient`:
 * its own retries off, core's bounded retry on), `Converse` for whole replies, `ConverseStream`
 * for streams, and the SDK's errors mapped to the contract's classes.
 *
 * Each call passes the attempt's `AbortSignal` to `client.send`, so cancellation and core's
 * deadlines end the HTTP request (and an open stream). The runtime option `fetch` has no meaning
 * here: the AWS SDK sends through Node's `http2` / `http` modules, not `fetch`.
 */
export class BedrockTransport implements WireTransport<BedrockRequest, BedrockReply, BedrockChunk> {
  readonly #context: AdapterContext;
  readonly #defaults: BedrockDefaults;
  readonly #client: BedrockRuntimeClient;

  /** Builds the client from the validated config and the parsed `options`. */
  constructor(context: AdapterContext, defaults: BedrockDefaults) {
    this.#context = context;
    this.#defaults = defaults;
    this.#client = createBedrockClient(context, { defaults, secrets: () => this.#secrets() });
  }

  /** The SDK client, for a caller that needs an operation the adapter does not wrap. */
  get client(): BedrockRuntimeClient {
    return this.#client;
  }

  /** One `Converse` call. */
  send(request: BedrockRequest, { signal }: WireAttempt): Promise<BedrockReply> {
    return this.#client.send(new ConverseCommand(request), { abortSignal: signal });
  }

  /**
   * One `ConverseStream` call: resolves once the SDK has the response and its first event (an
   * exception in the first frame is thrown here, later ones by the iterator) with the SDK's
   * parsed event stream, whose HTTP body is closed when the signal aborts or the reader stops.
   */
  async open(
    request: BedrockRequest,
    { signal }: WireAttempt,
  ): Promise<AsyncIterable<BedrockChunk>> {
    const command = new ConverseStreamCommand(request);
    const body = captureResponseBody(command);
    const reply = await this.#client.send(command, { abortSignal: signal });
    if (!reply.stream) {
      throw new ServerError('bedrock: ConverseStream answered without an event stream', {
        provider: BEDROCK,
        provider_status: reply.$metadata.httpStatusCode ?? null,
      });
    }
    return releasingStream(reply.stream, body, signal);
  }

  /** The SDK's errors in the contract's classes, secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toBedrockAdapterError(error, request.request_id, this.#secrets());
  }

  /**
   * Where calls go (telemetry's `server.address`): `base_url`, else the endpoint the SDK reads
   * from `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` or `AWS_ENDPOINT_URL`, else the Region's endpoint
   * `https://bedrock-runtime.<region>.amazonaws.com` when the Region is known without I/O.
   */
  serverUrl(): string | undefined {
    const env = process.env;
    const endpoint =
      this.#context.config.base_url ?? env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? env.AWS_ENDPOINT_URL;
    if (endpoint) return endpoint;
    const region = this.#defaults.region ?? env.AWS_REGION;
    return region ? `https://bedrock-runtime.${region}.amazonaws.com` : undefined;
  }

  /** Why no call can be made as configured (see `bedrockSetupProblem`), without any network call. */
  setupProblem(): string | null {
    return bedrockSetupProblem({
      apiKey: this.#context.config.api_key,
      region: this.#defaults.region,
      profile: this.#defaults.profile,
    });
  }

  /** What is redacted from errors and SDK log lines. */
  #secrets(): Array<string | null | undefined> {
    const { config } = this.#context;
    return [
      config.api_key,
      process.env.AWS_BEARER_TOKEN_BEDROCK,
      process.env.AWS_SECRET_ACCESS_KEY,
      process.env.AWS_SESSION_TOKEN,
      ...Object.values(config.extra_headers),
    ];
  }
}
