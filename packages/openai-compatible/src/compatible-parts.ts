import { type AdapterConfigInput, AdapterOptionError } from '@yourtool/core';
import type {
  AdapterContext,
  WireAssembly,
  WireCall,
  WireModels,
  WireProvider,
} from '@yourtool/core/adapter';
import { temperatureRefusal } from '@yourtool/openai';
import type { OpenAIStreamItem } from '@yourtool/openai/codec';
import {
  type ChatCompletionsClientOptions,
  type ChatCompletionsEncoding,
  type ChatCompletionsRules,
  chatCompletionsParts,
} from '@yourtool/openai/wire';
import OpenAI, { AzureOpenAI } from 'openai';
import { createReasoningDeltaMapper } from './codec/reasoning.js';
import { toCompatibleParams } from './codec/request.js';
import { fromCompatibleChatCompletion } from './codec/response.js';
import { CONSERVATIVE_CAPABILITIES, capabilitiesFromSpec, knownOpenAIModel } from './models.js';
import type { OpenAICompatibleOptions, ResolvedQuirks } from './options.js';
import { resolveQuirks } from './resolve.js';
import { OpenAICompatibleCallOptionsSchema } from './schema.js';

/** A config whose `options` are an {@link OpenAICompatibleOptions}. */
export type OpenAICompatibleConfig = Omit<AdapterConfigInput, 'options'> & {
  options?: OpenAICompatibleOptions;
};

/** What an OpenAI-compatible adapter is constructed from, worked out of its config. */
export interface OpenAICompatibleAssembly {
  /** The provider key (`options.provider`, the preset's, or `openai-compatible`). */
  provider: WireProvider;
  /** The config as core validates it. */
  config: AdapterConfigInput;
  /** The resolved quirks (options over preset over defaults). */
  quirks: Readonly<ResolvedQuirks>;
  /** Builds the Chat Completions parts with these quirks as the rules. */
  assemble: WireAssembly<ChatCompletionsEncoding, OpenAI.ChatCompletion, OpenAIStreamItem>;
}

/**
 * Resolves an OpenAI-compatible config into the provider, quirks and parts of its adapter: the
 * `@yourtool/openai` Chat Completions codec and transport with the deployment's quirks as
 * rules, and the `models` option as the model facts.
 * @throws AdapterOptionError naming an unknown preset, an option of the wrong type or value
 * (`options.<field>`), or a missing base URL (`base_url`: none in the config, in the
 * `base_url_env` variable, or from the preset).
 */
export function openAICompatibleAssembly(config: OpenAICompatibleConfig): OpenAICompatibleAssembly {
  const quirks = resolveQuirks(config.options ?? {});
  const baseUrl =
    config.base_url ?? process.env[quirks.baseUrlEnv] ?? quirks.defaultBaseUrl ?? undefined;
  if (!baseUrl) {
    // no preset URL, none configured: every call would fail, so the setup does instead
    throw new AdapterOptionError(
      quirks.provider,
      'base_url',
      `required: set base_url in the config or the ${quirks.baseUrlEnv} environment variable`,
    );
  }
  return {
    provider: { name: quirks.provider },
    config: config as AdapterConfigInput,
    quirks,
    assemble: (context) =>
      chatCompletionsParts(
        context,
        compatibleRules(context, quirks, baseUrl),
        compatibleModels(quirks),
      ),
  };
}

/** The `models` option over a conservative default (for Azure, OpenAI's table under it). */
function compatibleModels(quirks: ResolvedQuirks): WireModels {
  return {
    defaultModel: `${quirks.provider}:${quirks.defaultModel ?? 'default'}`,
    capabilities: (wireName) =>
      capabilitiesFromSpec(
        quirks.models[wireName],
        knownOpenAIModel(quirks, wireName)?.capabilities ?? CONSERVATIVE_CAPABILITIES,
      ),
  };
}

/** The deployment's quirks as Chat Completions rules. */
function compatibleRules(
  context: AdapterContext,
  quirks: ResolvedQuirks,
  baseUrl: string,
): ChatCompletionsRules {
  return {
    client: {
      name: quirks.provider,
      apiKeyEnv: quirks.apiKeyEnv,
      baseUrlEnv: quirks.baseUrlEnv,
      defaultBaseUrl: baseUrl,
      apiKey: quirks.requiresApiKey ? 'required' : 'optional',
    },
    encode: (call) => {
      // an unknown per-call key is a caller's mistake: refuse it rather than send without it
      context.parseCallOptions(OpenAICompatibleCallOptionsSchema, call.options);
      return encodeCompatible(quirks, call);
    },
    // reasoning decodes as unsigned thinking
    decode: (completion, encoding, call) =>
      fromCompatibleChatCompletion(completion, call.toolIdMap, {
        provider: quirks.provider,
        reasoningField: quirks.reasoningField,
        logger: call.logger,
        stopSequencesSent: encoding.stopSequencesSent,
        emulatedStopSequences: encoding.emulatedStopSequences,
      }),
    // reasoning deltas stream as `thinking.delta`
    streamOptions: () =>
      quirks.reasoningField === 'none'
        ? {}
        : { onDelta: createReasoningDeltaMapper(quirks.reasoningField) },
    createClient: (options) => compatibleClient(quirks, options),
  };
}

/** Encodes a request with the openai codec and this deployment's quirks. */
function encodeCompatible(quirks: ResolvedQuirks, call: WireCall): ChatCompletionsEncoding {
  const { request, wireName, logger } = call;
  const spec = quirks.models[wireName];
  const openAI = knownOpenAIModel(quirks, wireName);
  const refusal =
    spec?.temperature === false
      ? `${wireName} does not accept temperature`
      : spec?.temperature === true || !openAI
        ? null
        : temperatureRefusal(openAI, wireName, openAI.defaultReasoningEffort);
  const encoding = toCompatibleParams(request, {
    provider: quirks.provider,
    wireName,
    bodyModel: quirks.azure?.deployments?.[wireName] ?? wireName,
    capabilities: call.capabilities,
    toolIdMap: call.toolIdMap,
    historyMemo: call.historyMemo,
    logger,
    maxTokensField: quirks.maxTokensField,
    ...(quirks.toolIdRules ? { toolIdRules: quirks.toolIdRules } : {}),
    stopSequences: spec?.stop_sequences ?? openAI?.stopSequences ?? 'sent',
    temperatureRefusal: refusal,
    reasoningField: quirks.reasoningField,
    reasoningReplay: quirks.reasoningReplay,
    reasoningRequiredWithToolCalls: quirks.reasoningRequiredWithToolCalls,
    requestOrder: quirks.requestOrder,
    unsupportedParameters: quirks.unsupportedParameters,
    extraBody: quirks.extraBody,
  });
  return {
    ...encoding,
    includeUsage: quirks.includeUsage && !quirks.unsupportedParameters.includes('stream_options'),
  };
}

/**
 * The SDK client: `AzureOpenAI` (api-version query, `/openai/deployments/{name}` paths,
 * `api-key` header) when `azure.api_version` is set; for Azure's v1 API the plain client with
 * the key in `api-key`; otherwise the plain client.
 */
function compatibleClient(quirks: ResolvedQuirks, options: ChatCompletionsClientOptions): OpenAI {
  const azure = quirks.azure;
  if (!azure) return new OpenAI(options);
  if (azure.api_version) {
    return new AzureOpenAI({
      ...(typeof options.apiKey === 'string' ? { apiKey: options.apiKey } : {}),
      endpoint: options.baseURL ?? undefined,
      maxRetries: options.maxRetries,
      timeout: options.timeout,
      defaultHeaders: options.defaultHeaders,
      logger: options.logger,
      logLevel: options.logLevel,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      apiVersion: azure.api_version,
    });
  }
  return new OpenAI({
    ...options,
    defaultHeaders: {
      ...(options.defaultHeaders as Record<string, string | null> | undefined),
      ...(typeof options.apiKey === 'string' ? { 'api-key': options.apiKey } : {}),
      authorization: null,
    },
  });
}
