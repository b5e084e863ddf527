import { createRequire } from 'node:module';
import type { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { OtherAdapterError } from '@yourtool/core';

/** The optional peer dependency Claude on Vertex AI is sent through. */
export const VERTEX_SDK_PACKAGE = '@anthropic-ai/vertex-sdk';

/**
 * A Google auth client as the Vertex SDK uses one (google-auth-library's `AuthClient` fits):
 * the headers to authenticate a request with, and the project its credentials belong to.
 */
export interface VertexAuthClient {
  /** The `Authorization` (and quota project) headers for one request. */
  getRequestHeaders(url?: string | URL): Promise<Headers>;
  /** The credentials' project, when they name one. */
  projectId?: string | null | undefined;
}

/** What the adapter hands the Vertex SDK's client constructor. */
export interface VertexClientOptions {
  region: string;
  projectId: string;
  baseURL?: string | undefined;
  authClient?: VertexAuthClient | undefined;
  maxRetries: number;
  timeout: number;
  defaultHeaders: Record<string, string>;
  logger: NonNullable<ConstructorParameters<typeof BaseAnthropic>[0]>['logger'];
  logLevel: 'warn';
  openTelemetry: false;
  fetch?: typeof fetch | undefined;
}

/** The Vertex SDK's client class, as far as the adapter uses it. */
export type VertexClientClass = new (options: VertexClientOptions) => BaseAnthropic;

/**
 * The Vertex SDK is not installed: Claude on Vertex AI needs the optional peer dependency
 * `@anthropic-ai/vertex-sdk` (Anthropic users without it are unaffected). Never retried.
 */
export class VertexSdkMissingError extends OtherAdapterError {
  /** The npm package to install. */
  readonly packageName = VERTEX_SDK_PACKAGE;

  constructor(provider: string, cause: unknown) {
    super(vertexSdkMissing(provider), { provider, retryable: false, cause });
  }
}

/** The text naming the package to install. */
export function vertexSdkMissing(provider: string): string {
  return `${provider}: Claude on Vertex AI needs the "${VERTEX_SDK_PACKAGE}" package: npm install ${VERTEX_SDK_PACKAGE}`;
}

/** Whether `specifier` resolves from this package, without loading it (no network, no import). */
export function sdkInstalled(specifier: string): boolean {
  try {
    // the CommonJS build resolves from its file, the ESM build from its URL
    const from = typeof __filename === 'string' ? __filename : import.meta.url;
    createRequire(from).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the Vertex SDK's client class from `specifier` (the package, unless a test names
 * another module).
 * @throws VertexSdkMissingError when it is not installed or has no `AnthropicVertex`.
 */
export async function loadVertexClient(
  specifier: string,
  provider: string,
): Promise<VertexClientClass> {
  let module: Record<string, unknown>;
  try {
    module = (await import(specifier)) as Record<string, unknown>;
  } catch (cause) {
    throw new VertexSdkMissingError(provider, cause);
  }
  const found =
    module.AnthropicVertex ??
    (module.default as Record<string, unknown> | undefined)?.AnthropicVertex;
  if (typeof found !== 'function')
    throw new VertexSdkMissingError(provider, new Error(`${specifier} has no AnthropicVertex`));
  return found as VertexClientClass;
}
