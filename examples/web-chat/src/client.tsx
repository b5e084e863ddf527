import { useChat } from '@ai-sdk/react';
import type { ChatMessageMetadata } from '@yourtool/ai-sdk';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

type Message = UIMessage<ChatMessageMetadata>;
type Part = Message['parts'][number];

/** What `GET /api/state` returns: the stored history, the model, the running cost. */
interface State {
  model: string;
  choices: string[];
  session_cost_usd: string;
  messages: Message[];
}

// one transport for the page: the server keeps the history, so each POST is read for its last message
const transport = new DefaultChatTransport<Message>({ api: '/api/chat' });

function App({ initial }: { initial: State }) {
  const [model, setModel] = useState(initial.model);
  const [cost, setCost] = useState(initial.session_cost_usd);
  const [draft, setDraft] = useState('');
  const chat = useChat<Message>({
    messages: initial.messages,
    transport,
    // an approval answered on the page goes to the server at once, in a new request
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: ({ message }) => {
      const total = message.metadata?.session_cost_usd;
      if (total) setCost(total);
    },
  });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';

  async function pick(next: string) {
    const response = await fetch('/api/model', {
      method: 'POST',
      body: JSON.stringify({ model: next }),
    });
    if (response.ok) setModel(next);
  }

  return (
    <>
      <header>
        <strong>yourtool web chat</strong>
        <label>
          model{' '}
          <select data-testid="model" value={model} onChange={(e) => void pick(e.target.value)}>
            {initial.choices.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <span data-testid="cost">session ${cost}</span>
        <span data-testid="status">{chat.status}</span>
      </header>
      {chat.messages.map((m) => (
        <div key={m.id} data-testid={`message-${m.role}`} className={`msg ${m.role}`}>
          {m.parts.map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end (a reset drops the tail), so a position names one part
            <PartView key={`${m.id}-${i}`} part={part} answer={chat.addToolApprovalResponse} />
          ))}
          {m.metadata?.model ? <small> — {m.metadata.model}</small> : null}
        </div>
      ))}
      {chat.error ? <p className="error">{chat.error.message}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim() || busy) return;
          void chat.sendMessage({ text: draft });
          setDraft('');
        }}
      >
        <input
          name="text"
          data-testid="input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" data-testid="send" disabled={busy}>
          Send
        </button>
        <button type="button" data-testid="stop" disabled={!busy} onClick={() => void chat.stop()}>
          Stop
        </button>
      </form>
    </>
  );
}

type Answer = (response: { id: string; approved: boolean }) => void | PromiseLike<void>;

function PartView({ part, answer }: { part: Part; answer: Answer }) {
  if (part.type === 'text') return <span data-testid="text">{part.text}</span>;
  if (part.type === 'reasoning') return <div className="reasoning">{part.text}</div>;
  if (part.type === 'data-yourtool-fallback') return null;
  if (part.type !== 'dynamic-tool') return null;
  const label = `${part.toolName} ${JSON.stringify(part.input ?? {})}`;
  if (part.state === 'approval-requested') {
    const id = part.approval.id;
    return (
      <div className="tool" data-testid="approval">
        Run {label}?{' '}
        <button
          type="button"
          data-testid="approve"
          onClick={() => void answer({ id, approved: true })}
        >
          Approve
        </button>{' '}
        <button
          type="button"
          data-testid="deny"
          onClick={() => void answer({ id, approved: false })}
        >
          Deny
        </button>
      </div>
    );
  }
  const outcome =
    part.state === 'output-available'
      ? String(part.output)
      : part.state === 'output-error'
        ? `failed: ${part.errorText}`
        : part.state === 'output-denied'
          ? 'denied'
          : '…';
  return (
    <div className="tool" data-testid="tool">
      {label} → {outcome}
    </div>
  );
}

const root = document.getElementById('root') as HTMLElement;
const initial = (await (await fetch('/api/state')).json()) as State;
createRoot(root).render(<App initial={initial} />);
