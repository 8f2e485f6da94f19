/** The message box: enabled only on the owning device, otherwise disabled with the reason shown. */
import { useId, useState, type FormEvent } from 'react';
import type { SessionView } from '../../shared/device-api.ts';
import { errorMessage } from '../model/error-words.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { sendBlockReason } from '../model/session-state.ts';

/** Renders the composer with its `textbox` "Message". */
export function MessageBox({ session }: { session: SessionView }) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const reasonId = useId();
  const sendMessage = useSessionsStore((state) => state.sendMessage);
  const reason = sendBlockReason(session);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const message = text.trim();
    if (!message || reason || sending) return;
    setSending(true);
    setError(null);
    try {
      const result = await sendMessage(session.id, message);
      if (result.ok) setText('');
      else setError(result.message);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setSending(false);
    }
  }

  return (
    <form className={`composer ${reason ? 'composer--blocked' : ''}`} onSubmit={submit}>
      <label htmlFor={inputId} className="visually-hidden">
        Message
      </label>
      <textarea
        id={inputId}
        className="composer-input"
        rows={3}
        value={text}
        disabled={reason !== null}
        aria-describedby={reasonId}
        placeholder={reason ? '' : 'Message the agent — Enter to send, Shift+Enter for a new line'}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            void submit();
          }
        }}
      />
      <div className="composer-footer">
        <p id={reasonId} className={reason || error ? 'composer-reason' : 'composer-reason composer-reason--idle'}>
          {reason ?? error ?? (sending ? 'Sending…' : 'This device owns the session.')}
        </p>
        <button type="submit" className="button button--primary" disabled={reason !== null || sending || text.trim() === ''}>
          Send
        </button>
      </div>
    </form>
  );
}
