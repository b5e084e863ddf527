import type { TokenUsage } from '../schemas/adapter.js';
import type { MessageCompleteEvent } from '../schemas/stream.js';

/**
 * What a streamed reply says about itself besides its content, gathered as chunks arrive: usage,
 * the served model, the provider's response id, the refusal text. A `StreamBuilder` owns one
 * and puts it on `message.complete`.
 * @internal
 */
export class ReplyFacts {
  servedModel: string | null = null;
  responseId: string | null = null;
  refusal = '';
  /** Whether the provider reported any usage yet. */
  usageReported = false;
  readonly usage: TokenUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };

  /** Merges usage figures as they arrive (e.g. input at the start, output at the end). */
  updateUsage(update: Partial<TokenUsage>): void {
    this.usageReported = true;
    for (const [key, value] of Object.entries(update) as Array<[keyof TokenUsage, unknown]>) {
      if (value !== undefined && value !== null)
        (this.usage as Record<string, unknown>)[key] = value;
    }
  }

  /** The optional fields of `message.complete` these facts fill. */
  completionFields(): Pick<
    MessageCompleteEvent,
    'provider_response_id' | 'served_model' | 'refusal'
  > {
    return {
      ...(this.responseId ? { provider_response_id: this.responseId } : {}),
      ...(this.servedModel ? { served_model: this.servedModel } : {}),
      ...(this.refusal !== '' ? { refusal: this.refusal } : {}),
    };
  }
}
