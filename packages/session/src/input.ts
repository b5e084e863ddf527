/** What a line typed by a user asks for. */
export type ParsedUserInput =
  /** A message, possibly with a per-message model override (`@sonnet explain this`). */
  | { kind: 'message'; text: string; override: string | null }
  /** `/model <name>`: make a model sticky for the session. */
  | { kind: 'swap'; model: string }
  /** `/model` alone: show the current model. */
  | { kind: 'show_model' };

/**
 * Parses chat-style input: `/model <name>` swaps the session's model, a leading `@name`
 * overrides the model for that one message, anything else is a message.
 */
export function parseUserInput(line: string): ParsedUserInput {
  const text = line.trim();
  const command = /^\/model(?:\s+(\S+))?\s*$/.exec(text);
  if (command) return command[1] ? { kind: 'swap', model: command[1] } : { kind: 'show_model' };
  const override = /^@(\S+)\s+([\s\S]+)$/.exec(text);
  if (override?.[1] && override[2])
    return { kind: 'message', text: override[2].trim(), override: override[1] };
  return { kind: 'message', text, override: null };
}
