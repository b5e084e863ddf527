import type Anthropic from '@anthropic-ai/sdk';
import type { BaseAnthropic } from '@anthropic-ai/sdk/client';
import type { AdapterError, CanonicalRequest } from '@yourtool/core';
import type { AdapterContext, WireAttempt, WireBody, WireTransport } from '@yourtool/core/adapter';
import { anthropicRequestBody } from '../codec/body.js';
import { toAnthropicAdapterError } from '../codec/errors.js';
import type { AnthropicParams, AnthropicWireMemory } from '../codec/request.js';
import { anthropicStreamBody } from '../codec/stream-body.js';
import { type AnthropicChunk, sdkLogger } from '../transport.js';
import { VERTEX_ANTHROPIC_VERSION, type VertexAnthropicDefaults } from './options.js';
import {
  loadVertexClient,
  sdkInstalled,
  VERTEX_SDK_PACKAGE,
  type VertexAuthClient,
  vertexSdkMissing,
} from './sdk.js';
import { type VertexSetup, vertexSetup, vertexSetupProblem } from './setup.js';

/** A request body given as bytes: the SDK sends them as they are, with this type. */
const JSON_BODY = { 'content-type': 'application/json' } as const;

/** What the Vertex transport is built from besides the adapter's context. */
export interface VertexTransportOptions {
  /** The adapter name, which is the provider key (`vertex-anthropic`). */
  provider: string;
  /** The parsed config options. */
  defaults: VertexAnthropicDefaults;
  /** The adapter's wire memory (decision 0165), which the body writer reads. */
  memory: AnthropicWireMemory;
  /** A Google auth client to use instead of application default credentials. */
  authClient?: VertexAuthClient | undefined;
  /** Where the Vertex SDK is imported from (default the package; tests name a missing one). */
  sdkModule?: string | undefined;
}

/** One path segment, percent-encoded but for `@` (Vertex model names carry `@date`). */
const segment = (value: string): string => encodeURIComponent(value).replace(/%40/g, '@');

/** An auth client that sends one fixed OAuth access token (`api_key`). */
function accessTokenClient(token: string): VertexAuthClient {
  return {
    getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }),
    projectId: null,
  };
}

/**
 * The Vertex AI path of a Messages request: Vertex takes the model and the method in the URL
 * (`rawPredict`, or `streamRawPredict` for a stream).
 */
export function vertexMessagesPath(
  setup: { project: string; region: string },
  model: string,
  stream: boolean,
): string {
  const method = stream ? 'streamRawPredict' : 'rawPredict';
  return `/projects/${segment(setup.project)}/locations/${segment(setup.region)}/publishers/anthropic/models/${segment(model)}:${method}`;
}

/**
 * The Vertex AI request body: the Messages parameters without `model` (it is in the URL), with
 * `anthropic_version` (Vertex reads it from the body), as JSON bytes with the remembered turns
 * copied in one piece (decision 0149).
 */
export function vertexRequestBody(
  params: Anthropic.MessageCreateParams,
  memory: AnthropicWireMemory | undefined,
): Uint8Array {
  const { model: _model, ...rest } = params;
  return anthropicRequestBody({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }, memory);
}

/**
 * Claude on Vertex AI's transport: the Vertex SDK's client (`@anthropic-ai/vertex-sdk`, an
 * optional peer loaded at the first call; its own retries off), posting the Messages request as
 * bytes to the Vertex path the adapter builds itself. The SDK's middleware only rewrites a
 * string body sent to `/v1/messages`; a request to a Vertex path passes through it with the
 * Google auth headers added, so the bytes path of decision 0149 stays.
 */
export class VertexAnthropicTransport
  implements WireTransport<AnthropicParams, Anthropic.Message, AnthropicChunk>
{
  readonly #context: AdapterContext;
  readonly #options: VertexTransportOptions;
  readonly #sdkModule: string;
  #client: Promise<BaseAnthropic> | undefined;

  /** Reads nothing but the config and environment; the SDK is loaded at the first call. */
  constructor(context: AdapterContext, options: VertexTransportOptions) {
    this.#context = context;
    this.#options = options;
    this.#sdkModule = options.sdkModule ?? VERTEX_SDK_PACKAGE;
  }

  /** A non-streaming Messages request (`:rawPredict`). */
  async send(params: AnthropicParams, { signal }: WireAttempt): Promise<Anthropic.Message> {
    return this.#post<Anthropic.Message>({ ...params, stream: false }, signal);
  }

  /** A streaming Messages request (`:streamRawPredict`); core reads the SSE body. */
  async open(params: AnthropicParams, { signal }: WireAttempt): Promise<WireBody<AnthropicChunk>> {
    const client = await this.#sdkClient();
    const response = await client
      .post(this.#path(params.model, true), this.#request({ ...params, stream: true }, signal))
      .asResponse();
    return anthropicStreamBody(response);
  }

  /** The Anthropic error mapping, naming this provider, secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toAnthropicAdapterError(
      error,
      request.request_id,
      this.#secrets(),
      this.#options.provider,
    );
  }

  /** Where calls go: `base_url`, `ANTHROPIC_VERTEX_BASE_URL`, else the region's host. */
  serverUrl(): string | undefined {
    const configured = this.#context.config.base_url ?? process.env.ANTHROPIC_VERTEX_BASE_URL;
    if (configured) return configured;
    const region = this.#setup().region;
    if (region === null) return undefined;
    if (region === 'global') return 'https://aiplatform.googleapis.com/v1';
    if (region === 'us' || region === 'eu')
      return `https://aiplatform.${region}.rep.googleapis.com/v1`;
    return `https://${region}-aiplatform.googleapis.com/v1`;
  }

  /**
   * Why no call can be made, or null: the Vertex SDK not installed, no project, no region, or
   * no Google credentials (each named with where it is looked for). No network call.
   */
  setupProblem(): string | null {
    if (!sdkInstalled(this.#sdkModule)) return vertexSdkMissing(this.#options.provider);
    return this.credentialProblem();
  }

  /** {@link setupProblem} without the SDK check (the codec's: a missing SDK fails at the call). */
  credentialProblem(): string | null {
    return vertexSetupProblem(this.#setup());
  }

  #setup(): VertexSetup {
    const { defaults, authClient } = this.#options;
    return vertexSetup({
      project: defaults.project,
      region: defaults.region,
      metadataCredentials: defaults.metadataCredentials,
      explicitCredential: authClient !== undefined || Boolean(this.#context.config.api_key),
      credentialProject: authClient?.projectId,
    });
  }

  async #post<Reply>(params: Anthropic.MessageCreateParams, signal: AbortSignal): Promise<Reply> {
    const client = await this.#sdkClient();
    return client.post<Reply>(this.#path(params.model, false), this.#request(params, signal));
  }

  #path(model: string, stream: boolean): string {
    const { project, region } = this.#setup();
    // the codec refused the call before encoding when either is missing
    return vertexMessagesPath({ project: project ?? '', region: region ?? '' }, model, stream);
  }

  #request(params: Anthropic.MessageCreateParams, signal: AbortSignal) {
    return {
      body: vertexRequestBody(params, this.#options.memory),
      headers: JSON_BODY,
      stream: params.stream === true,
      signal,
    };
  }

  /** The Vertex SDK client, built once at the first call (the SDK is loaded then). */
  #sdkClient(): Promise<BaseAnthropic> {
    if (this.#client === undefined) {
      const created = this.#createClient();
      this.#client = created;
      // a failed load is not kept: installing the package fixes the next call
      created.catch(() => {
        if (this.#client === created) this.#client = undefined;
      });
    }
    return this.#client;
  }

  async #createClient(): Promise<BaseAnthropic> {
    const { config, runtime, logger } = this.#context;
    const { provider, authClient } = this.#options;
    const Client = await loadVertexClient(this.#sdkModule, provider);
    const setup = this.#setup();
    const auth = authClient ?? (config.api_key ? accessTokenClient(config.api_key) : undefined);
    return new Client({
      region: setup.region ?? '',
      projectId: setup.project ?? '',
      // unset, the SDK reads ANTHROPIC_VERTEX_BASE_URL, else derives the region's host
      ...(config.base_url ? { baseURL: config.base_url } : {}),
      // unset, the SDK uses application default credentials (GoogleAuth)
      ...(auth ? { authClient: auth } : {}),
      maxRetries: 0,
      timeout: config.timeout_seconds * 1000,
      defaultHeaders: { ...config.extra_headers },
      logger: sdkLogger(logger, () => this.#secrets(), provider),
      logLevel: 'warn',
      openTelemetry: false,
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    });
  }

  /** What is redacted from errors and SDK log lines: the access token and custom header values. */
  #secrets(): Array<string | undefined> {
    const { config } = this.#context;
    return [config.api_key ?? undefined, ...Object.values(config.extra_headers)];
  }
}
