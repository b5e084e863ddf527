import type { ContentBlock, Message } from '@yourtool/core';

/** A USD amount as the CLI shows it: the exact decimal string with `$`, or `unpriced`. */
export function money(cost: string | null | undefined): string {
  if (cost === null || cost === undefined) return 'unpriced';
  return `$${cost}`;
}

/** A total cost, with how many messages had no price: `$0.0084 + 2 unpriced`. */
export function costWithUnpriced(total: string, unpriced: number): string {
  return unpriced > 0 ? `${money(total)} + ${unpriced} unpriced` : money(total);
}

/** A canonical timestamp (`2026-01-02T03:04:05.123456Z`) as `2026-01-02 03:04:05`. */
export function shortTime(timestamp: string): string {
  return timestamp.replace('T', ' ').slice(0, 19);
}

/** `text` on one line, cut to `max` characters with `…`. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Rows as a table of left-aligned columns separated by two spaces, the header first; the last
 * column is not padded.
 */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** The text blocks of a message, joined. */
export function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

/** A content block as one line of `sessions show` (tool inputs and results shortened). */
export function describeBlock(block: ContentBlock, full: boolean): string {
  const cut = (text: string) => (full ? text : oneLine(text, 200));
  switch (block.type) {
    case 'text':
      return full ? block.text : oneLine(block.text, 400);
    case 'thinking':
      return `(thinking) ${cut(block.text)}`;
    case 'redacted_thinking':
      return '(redacted thinking)';
    case 'tool_use':
      return `→ ${block.name} ${cut(JSON.stringify(block.input))}`;
    case 'tool_result': {
      const text = block.content
        .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
        .join('');
      return `← ${block.is_error ? 'error: ' : ''}${cut(text)}`;
    }
    case 'image':
      return '[image]';
    default:
      return `[${(block as { type: string }).type}]`;
  }
}
