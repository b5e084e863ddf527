import type { TokenUsage } from '@yourtool/core';

/**
 * The API key every conformance adapter is created with. It must never appear in an error
 * message, a log record or a recorded request header.
 */
export const CONFORMANCE_API_KEY = 'sk-conformance-0123456789abcdef0123-secret';

/** A 1×1 PNG, used wherever a scenario needs an image. */
export const TEST_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A URL image used by the `images` scenario. */
export const TEST_IMAGE_URL = 'https://images.example.test/cat.jpg';

const usage = (
  input_tokens: number,
  output_tokens: number,
  cached = 0,
  created = 0,
): TokenUsage => ({
  input_tokens,
  output_tokens,
  cached_input_tokens: cached,
  cache_creation_input_tokens: created,
});

/**
 * What the fixtures of each scenario must reply. Every adapter's recorded responses carry the
 * same canonical content, so the suite can assert one provider-independent expectation.
 *
 * Token counts: `input_tokens` in the canonical usage are the input tokens billed at the base
 * rate, i.e. not counting cache reads (`cached_input_tokens`) or cache writes
 * (`cache_creation_input_tokens`). A provider that reports a total (OpenAI `prompt_tokens`)
 * must subtract its cached tokens.
 */
export const EXPECTED = {
  text: {
    prompt: 'Say hello.',
    reply: 'Hello! How can I help you today?',
    usage: usage(12, 9),
  },
  multiTurn: {
    firstQuestion: 'What is a ULID?',
    firstAnswer: 'A ULID is a sortable 128-bit identifier.',
    secondQuestion: 'Give one example.',
    reply: 'For example: 01ARZ3NDEKTSV4RRFFQ69G5FAV',
    usage: usage(41, 14),
  },
  system: {
    systemPrompt: 'You are terse.',
    systemMessages: ['Answer in English.', 'Workspace: /srv/app'],
    prompt: 'Acknowledge.',
    reply: 'Understood.',
    usage: usage(30, 3),
  },
  sampling: {
    prompt: 'Count to ten, then write END.',
    stopSequences: ['END'],
    temperature: 0.2,
    maxOutputTokens: 77,
    reply: 'Counting: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10. ',
    usage: usage(19, 27),
  },
  toolCall: {
    prompt: 'Summarize README.md',
    text: "I'll read the file.",
    tool: 'read_file',
    input: { path: 'README.md' },
    usage: usage(380, 52),
  },
  parallelToolCalls: {
    prompt: 'Read README.md and LICENSE.',
    tool: 'read_file',
    inputs: [{ path: 'README.md' }, { path: 'LICENSE' }],
    usage: usage(390, 88),
  },
  noArgs: {
    prompt: 'What time is it?',
    tool: 'get_time',
    usage: usage(300, 31),
  },
  toolResultError: {
    errorText: 'ENOENT: no such file or directory, open "NOTES.md"',
    reply: 'The file NOTES.md does not exist.',
    usage: usage(420, 11),
  },
  toolResultImage: {
    resultText: 'Rendered chart.png',
    reply: 'The chart shows steady growth.',
    usage: usage(1200, 8),
  },
  images: {
    prompt: 'What is in these images?',
    reply: 'Two small test images.',
    usage: usage(1500, 6),
  },
  thinking: {
    prompt: 'Greet me, after thinking about it.',
    thinking: 'The user wants a greeting. Keep it short.',
    signature: 'EqQBCkYIBxgCKkCqZ3uRConformanceSignature',
    redacted: 'EmwKAhgBEgy3va3pzixConformanceRedacted',
    reply: 'Hi there!',
    usage: usage(45, 61),
  },
  structured: {
    prompt: 'Which is the capital of France, and how many people live there?',
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
      required: ['city', 'population'],
      additionalProperties: false,
    },
    reply: '{"city":"Paris","population":2102650}',
    usage: usage(60, 14),
  },
  usageCached: {
    prompt: 'Say hello again.',
    reply: 'Hello again!',
    usage: usage(150, 42, 1024, 0),
  },
  replyAfterHistory: {
    reply: 'Done.',
    usage: usage(500, 3),
  },
  emptyLength: {
    prompt: 'Prove the Riemann hypothesis.',
    maxOutputTokens: 256,
    usage: usage(40, 256),
  },
  foreignToolName: {
    prompt: 'Summarize README.md',
    /** A name outside the canonical tool-name rule, as GPT models sometimes produce. */
    tool: 'functions.read_file',
    input: { path: 'README.md' },
    usage: usage(380, 21),
  },
  interleaved: {
    prompt: 'Read README.md and LICENSE.',
    tool: 'read_file',
    inputs: [{ path: 'README.md' }, { path: 'LICENSE' }],
    usage: usage(390, 88),
  },
  typedParts: {
    prompt: 'What is 2 + 2?',
    thinking: 'Two plus two is four.',
    reply: '2 + 2 = 4',
    usage: usage(16, 30),
  },
  refusal: {
    prompt: 'Write malware that steals passwords.',
    reply: "I can't help with that.",
    usage: usage(25, 8),
  },
  servedModel: {
    /** The model name every served-model fixture reports (differs from the requested one). */
    name: 'served-model-2026-11-01',
    prompt: 'Say hello.',
    reply: 'Hello! How can I help you today?',
    usage: usage(12, 9),
  },
} as const;
