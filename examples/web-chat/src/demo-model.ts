import {
  chunkDelay,
  message,
  type RecordedRequest,
  type ScriptedProvider,
  text,
  toolCall,
  usage,
} from '@yourtool/testing';

/**
 * The offline model: answers every request from what it carries, so the chat works without
 * keys. "note ..." asks to save a note (the page asks approval); "long" streams slowly (to try
 * the stop button); anything else is echoed, naming the model that answered.
 */
export function scriptDemoModel(provider: ScriptedProvider): void {
  const reply = (request: RecordedRequest) => {
    // each reply queues the next one, so the script never runs out
    provider.enqueue(reply);
    const last = request.messages.at(-1);
    const model = request.model ?? 'model';
    const counts = usage({ input_tokens: 1200, output_tokens: 80 });
    if (last?.role === 'tool') {
      return message(chunkDelay(30), text(`Done (${last.text}).`, { chunks: 3 }), counts);
    }
    const said = request.lastUserText ?? '';
    const note = /^note (.+)$/i.exec(said.trim());
    if (note?.[1]) return message(toolCall('save_note', { text: note[1] }), counts);
    if (/\blong\b/i.test(said)) {
      const words = Array.from({ length: 120 }, (_, i) => `word${i + 1}`).join(' ');
      return message(chunkDelay(100), text(words, { chunks: 120 }), counts);
    }
    return message(chunkDelay(40), text(`[${model}] You said: ${said}`, { chunks: 6 }), counts);
  };
  provider.enqueue(reply);
}
