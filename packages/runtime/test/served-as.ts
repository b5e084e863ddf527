import type { ScriptedResponse } from '@yourtool/conformance';

/**
 * The recorded responses as if `model` (the provider's name for it) had served them: replies
 * are priced by the model that served them, so a test about one model's price serves it.
 */
export function servedAs(responses: ScriptedResponse[], model: string): ScriptedResponse[] {
  const rename = (text: string) =>
    text.replace(/"(model|modelVersion)":"[^"]*"/g, (_whole, key: string) => `"${key}":"${model}"`);
  return responses.map((response) => {
    if (response.type === 'stream') return { ...response, chunks: response.chunks.map(rename) };
    if (response.type === 'text') return { ...response, body: rename(response.body) };
    if (response.type === 'json') {
      return { ...response, body: JSON.parse(rename(JSON.stringify(response.body))) };
    }
    return response;
  });
}
