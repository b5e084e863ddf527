import { defineTool, type ToolHandler } from '@yourtool/session';

/** Where the notes of `save_note` go (an in-memory list the page cannot touch). */
export type NoteBook = string[];

/**
 * The chat's tools: `clock` (read: runs at once) and `save_note` (write: the session asks the
 * bridge's confirm hook, which asks the page for approval).
 */
export function chatTools(notes: NoteBook): ToolHandler[] {
  return [
    defineTool({
      name: 'clock',
      description: 'The current time, as an ISO 8601 string (UTC).',
      side_effects: 'read',
      input_schema: { type: 'object', properties: {} },
      run: () => new Date().toISOString(),
    }),
    defineTool({
      name: 'save_note',
      description: 'Saves a short note for the user.',
      side_effects: 'write',
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'the note' } },
        required: ['text'],
      },
      run: ({ text }) => {
        notes.push(text);
        return `saved note ${notes.length}: ${text}`;
      },
    }),
  ];
}
