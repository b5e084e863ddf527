import { YourtoolError } from './errors.js';

/** A canonical model id split into its provider and provider-side name. */
export interface ModelId {
  /** Provider key, e.g. `anthropic`, `openrouter`. */
  provider: string;
  /** The model name, opaque: it may contain `:` and `/` (`qwen3:8b`, `deepseek/deepseek-v3`). */
  name: string;
}

/** Thrown when a string is not a `provider:name` model id. */
export class InvalidModelIdError extends YourtoolError {
  /** The value that failed to parse. */
  readonly value: string;

  constructor(value: string, reason: string) {
    super('invalid_model_id', `invalid model id "${value}": ${reason}`);
    this.value = value;
  }
}

const PROVIDER_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Splits a canonical model id at its first colon only: `ollama:qwen3:8b` is provider `ollama`,
 * name `qwen3:8b`. The provider must be lower-case letters, digits, `-` or `_`; the name must be
 * non-empty and is otherwise opaque (no suffix grammar).
 */
export function parseModelId(value: string): ModelId {
  const colon = value.indexOf(':');
  if (colon < 0) {
    throw new InvalidModelIdError(
      value,
      'expected "provider:name", e.g. "anthropic:claude-sonnet-4-6"',
    );
  }
  const provider = value.slice(0, colon);
  const name = value.slice(colon + 1);
  if (!PROVIDER_PATTERN.test(provider)) {
    throw new InvalidModelIdError(
      value,
      `provider "${provider}" must be lower-case letters, digits, "-" or "_"`,
    );
  }
  if (name.length === 0 || name.trim() !== name) {
    throw new InvalidModelIdError(
      value,
      'the model name after the first ":" must be non-empty, without surrounding spaces',
    );
  }
  return { provider, name };
}

/** Joins a provider and name into a canonical model id; the inverse of {@link parseModelId}. */
export function formatModelId(id: ModelId): string;
export function formatModelId(provider: string, name: string): string;
export function formatModelId(providerOrId: string | ModelId, name?: string): string {
  const id =
    typeof providerOrId === 'string' ? { provider: providerOrId, name: name ?? '' } : providerOrId;
  const formatted = `${id.provider}:${id.name}`;
  parseModelId(formatted);
  return formatted;
}
