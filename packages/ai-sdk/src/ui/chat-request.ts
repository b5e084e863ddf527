import { ChatRequestError } from './errors.js';

/** An answer to a tool approval, as the client's last assistant message carries it. */
export interface ApprovalAnswer {
  /** The approval id (this package uses the tool use id). */
  approvalId: string;
  approved: boolean;
  reason: string | null;
}

/** What a `useChat` request asks, once read: only what the stored session does not have. */
export type ChatRequest =
  | { kind: 'message'; chatId: string | null; text: string }
  | { kind: 'approvals'; chatId: string | null; replyId: string; answers: ApprovalAnswer[] }
  | { kind: 'regenerate'; chatId: string | null; messageId: string };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the body `DefaultChatTransport` posts (`{ id, messages, trigger, messageId }`). The
 * whole UI history comes with it, but the session has it stored, so only the last message is
 * read: a user message's text (a new turn), or the approval answers on the last assistant
 * message (decision 0177).
 * @throws ChatRequestError naming the field at fault.
 */
export function readChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new ChatRequestError('body', 'expected a JSON object');
  const chatId = typeof body.id === 'string' ? body.id : null;
  if (body.trigger === 'regenerate-message') {
    const messageId = typeof body.messageId === 'string' ? body.messageId : '';
    return { kind: 'regenerate', chatId, messageId };
  }
  if (body.trigger !== undefined && body.trigger !== 'submit-message') {
    throw new ChatRequestError(
      'trigger',
      `expected "submit-message" or "regenerate-message", got ${JSON.stringify(body.trigger)}`,
    );
  }
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRequestError('messages', 'expected a non-empty array of UI messages');
  }
  const at = messages.length - 1;
  const last: unknown = messages[at];
  if (!isObject(last)) throw new ChatRequestError(`messages[${at}]`, 'expected an object');
  if (!Array.isArray(last.parts))
    throw new ChatRequestError(`messages[${at}].parts`, 'expected an array');
  if (last.role === 'user') return { kind: 'message', chatId, text: userText(last.parts, at) };
  if (last.role === 'assistant') {
    const answers = approvalAnswers(last.parts, at);
    if (answers.length === 0) {
      throw new ChatRequestError(
        `messages[${at}]`,
        'the last message is an assistant message without approval answers',
      );
    }
    return {
      kind: 'approvals',
      chatId,
      replyId: typeof last.id === 'string' ? last.id : '',
      answers,
    };
  }
  throw new ChatRequestError(
    `messages[${at}].role`,
    `expected "user" or "assistant", got ${JSON.stringify(last.role)}`,
  );
}

/** The text of a user message: its text parts joined (other parts are refused by name). */
function userText(parts: unknown[], at: number): string {
  const texts: string[] = [];
  parts.forEach((part, i) => {
    const where = `messages[${at}].parts[${i}]`;
    if (!isObject(part)) throw new ChatRequestError(where, 'expected an object');
    if (part.type !== 'text') {
      throw new ChatRequestError(
        `${where}.type`,
        `only text parts are taken, got ${JSON.stringify(part.type)}`,
      );
    }
    if (typeof part.text !== 'string')
      throw new ChatRequestError(`${where}.text`, 'expected a string');
    texts.push(part.text);
  });
  const text = texts.join('\n');
  if (!text.trim())
    throw new ChatRequestError(`messages[${at}].parts`, 'the user message has no text');
  return text;
}

/** The answered approvals (`state: "approval-responded"`) of the last assistant message's tool parts. */
function approvalAnswers(parts: unknown[], at: number): ApprovalAnswer[] {
  const answers: ApprovalAnswer[] = [];
  parts.forEach((part, i) => {
    if (!isObject(part) || part.state !== 'approval-responded') return;
    const where = `messages[${at}].parts[${i}].approval`;
    const approval = part.approval;
    if (!isObject(approval)) throw new ChatRequestError(where, 'expected an object');
    if (typeof approval.id !== 'string')
      throw new ChatRequestError(`${where}.id`, 'expected a string');
    if (typeof approval.approved !== 'boolean') {
      throw new ChatRequestError(`${where}.approved`, 'expected a boolean');
    }
    const reason = typeof approval.reason === 'string' ? approval.reason : null;
    answers.push({ approvalId: approval.id, approved: approval.approved, reason });
  });
  return answers;
}
