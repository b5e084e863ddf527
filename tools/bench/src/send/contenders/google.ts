import {
  type GenerateContentConfig,
  type GenerateContentParameters,
  GoogleGenAI,
} from '@google/genai';
import { GoogleAdapter } from '@yourtool/google';
import type { SendContender } from '../contender.js';

const MODEL = 'gemini-2.5-flash';

/** A `generateContent` request body as the Gemini API takes it (what our adapter sent). */
interface GeminiBody {
  contents: Array<{ role?: string; parts?: unknown[] }>;
  generationConfig?: Record<string, unknown>;
  [topLevel: string]: unknown;
}

/**
 * The SDK's parameters for a Gemini API body: `contents` as they are, the top-level fields
 * (`systemInstruction`, `tools`, `toolConfig`, `safetySettings`) and `generationConfig`'s into
 * `config`, which `@google/genai` converts back to the same body.
 */
function sdkParams(body: GeminiBody): GenerateContentParameters {
  const { contents, generationConfig, ...topLevel } = body;
  const config = { ...topLevel, ...generationConfig } as GenerateContentConfig;
  return { model: MODEL, contents: contents as GenerateContentParameters['contents'], config };
}

/**
 * Fails unless `@google/genai` writes `params` as `body`, byte for byte (its fetch keeps the body
 * and answers nothing over the network).
 */
async function sameBody(params: GenerateContentParameters, body: string): Promise<void> {
  let written = '';
  const keep: typeof fetch = async (_input, init) => {
    written = String(init?.body);
    return new Response(googleContender.reply.body, {
      headers: { 'content-type': 'application/json' },
    });
  };
  const ai = new GoogleGenAI({ apiKey: 'bench-key', httpOptions: { fetch: keep } });
  await ai.models.generateContent(params);
  if (written !== body) {
    throw new Error(
      `send/google: the raw SDK writes the parameters as a body of ${written.length} characters, not the ${body.length} our adapter sent`,
    );
  }
}

/** Gemini: `GoogleAdapter` against `ai.models.generateContent`. */
export const googleContender: SendContender = {
  provider: 'google',
  model: `google:${MODEL}`,
  reply: {
    path: ':generateContent',
    body: JSON.stringify({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'Done.' }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: 120_000,
        candidatesTokenCount: 2,
        totalTokenCount: 120_002,
      },
      modelVersion: MODEL,
      responseId: 'send-bench',
    }),
  },
  open(url) {
    const adapter = new GoogleAdapter({ api_key: 'bench-key', base_url: url });
    const ai = new GoogleGenAI({ apiKey: 'bench-key', httpOptions: { baseUrl: url } });
    let check: Promise<void> | undefined;
    return {
      ours: async (request, toolIdMap) => {
        const reply = await adapter.complete(request, { toolIdMap });
        return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      },
      baseline: (body) => {
        const params = sdkParams(JSON.parse(body) as GeminiBody);
        // once, untimed: the SDK writes these parameters as the very body our adapter sent
        check ??= sameBody(params, body);
        const checked = check;
        return async () => {
          await checked;
          const reply = await ai.models.generateContent(params);
          return reply.candidates?.[0]?.content?.parts?.[0]?.text ?? '';
        };
      },
      entries: (body) =>
        (JSON.parse(body) as GeminiBody).contents.reduce((n, c) => n + (c.parts?.length ?? 0), 0),
    };
  },
};
