import type { StreamSize } from '../streaming/wire.js';

/** The reply of a cold-start repetition: about 1,000 wire events, text and two tool calls. */
export const COLD_STREAM_SIZE: StreamSize = { textDeltas: 700, tools: 1, editsPerTool: 30 };
