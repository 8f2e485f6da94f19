/**
 * The `region` "Permission request", above the composer, on every device that shows the session:
 * the first pending request of the queue — which agent asks, the tool, the exact command or the
 * file and its diff — with `button`s "Allow", "Allow for this session" and "Deny" (and an optional
 * message back to the agent), and "Stop the turn" on the device where the agent runs. An answer
 * from another device travels to the owner; once the request has ended, this device says how, and
 * by whom when it was not this device's answer that counted — while the session is still at the
 * owner and generation it was answered at (a move ends what was said of it).
 */
import { useEffect, useId, useState } from 'react';
import type { SessionDetail } from '../../shared/device-api.ts';
import type { PermissionDecision } from '../../shared/permission-request.ts';
import { describeAsk, describeRule, type PermissionOutcomeView, type PermissionRequestView } from '../../shared/permission-views.ts';
import { errorMessage } from '../model/error-words.ts';
import { isAt, stampOf, type Stamp } from '../model/run-panels.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { TextWithCode } from './text-with-code.tsx';

const DECIDED: Record<PermissionOutcomeView['decision'], string> = {
  allow: 'allowed',
  'allow-session': 'allowed for this session',
  deny: 'denied',
  cancelled: 'no longer asked',
};

/** What this device says of an ended request it answered: how it ended, and whose answer counted. */
function endedText(outcome: PermissionOutcomeView, selfId: string | null): string {
  const how = DECIDED[outcome.decision];
  if (outcome.via === 'user' && outcome.byDeviceId === selfId) return `Your answer reached the agent: ${outcome.asked} was ${how}.`;
  if (outcome.via === 'user')
    return `Already answered on ${outcome.byName ?? 'another device'}: ${outcome.asked} was ${how}; your answer was not used.`;
  const why = outcome.message ? ` (${outcome.message.replace(/\.$/, '')})` : '';
  return `${outcome.asked[0]?.toUpperCase() ?? ''}${outcome.asked.slice(1)} was ${how} by Baton${why}; your answer was not used.`;
}

/** Who asks, in words: "Claude Code" for the main agent, else "the subagent “Scripted subagent” of Claude Code". */
function asker(request: PermissionRequestView): string {
  return request.agent === 'main' ? request.providerLabel : `the subagent “${request.agentName}” of ${request.providerLabel}`;
}

function RequestBody({ request, elsewhere }: { request: PermissionRequestView; elsewhere: string | null }) {
  return (
    <>
      <p className="permission-ask">
        <strong>{asker(request)}</strong> wants to <TextWithCode text={describeAsk(request)} />
        {elsewhere === null ? '' : ` on ${elsewhere}`}.
      </p>
      {request.command !== undefined && (
        <pre className="permission-command mono" aria-label="Command">
          {request.command}
        </pre>
      )}
      {request.path !== undefined && (
        <p className="permission-file">
          File: <code className="mono">{request.path}</code>
        </p>
      )}
      {request.diff !== undefined && (
        <pre className="permission-diff mono" aria-label="Diff of the change">
          {request.diff}
        </pre>
      )}
      {request.detail !== undefined && <pre className="permission-command mono">{request.detail}</pre>}
      {request.reason !== undefined && <p className="muted">{request.reason}</p>}
    </>
  );
}

/** Renders the first pending request of `session` with its answers, or what became of this device's last answer. */
export function PermissionRequest({ session }: { session: SessionDetail }) {
  const headingId = useId();
  const messageId = useId();
  const selfId = useStatusStore((state) => state.status?.deviceId ?? null);
  const answerPermission = useSessionsStore((state) => state.answerPermission);
  const interruptTurn = useSessionsStore((state) => state.interruptTurn);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [saying, setSaid] = useState<{ text: string; stamp: Stamp } | null>(null);
  const [answered, setAnswered] = useState<{ requestId: string; stamp: Stamp } | null>(null);
  const request = session.permissionRequests[0];
  // What was said about one request (sent, refused) is not said about the next.
  useEffect(() => setSaid(null), [request?.id]);
  // Said of the session where it was: once it moves on (owner, generation), it is said no more.
  const said = saying !== null && isAt(session, saying.stamp) ? saying.text : null;
  const say = (text: string | null) => setSaid(text === null ? null : { text, stamp: stampOf(session) });
  const ended =
    answered === null || !isAt(session, answered.stamp)
      ? undefined
      : session.permissionOutcomes.find((o) => o.requestId === answered.requestId);

  async function answer(decision: PermissionDecision) {
    if (!request || busy) return;
    setBusy(true);
    say(null);
    const text = message.trim();
    try {
      const input = { sessionId: session.id, requestId: request.id, generation: request.generation, decision };
      const result = await answerPermission(decision === 'deny' && text !== '' ? { ...input, message: text } : input);
      if (result.ok) {
        setAnswered({ requestId: request.id, stamp: stampOf(session) });
        setMessage('');
        if (!session.isOwner) say(`Answer sent to ${session.ownerName}…`);
      } else say(result.message);
    } catch (failure) {
      say(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  async function stopTurn() {
    setBusy(true);
    const result = await interruptTurn(session.id).catch((failure: unknown) => ({ ok: false as const, message: errorMessage(failure) }));
    setBusy(false);
    say(result.ok ? null : result.message);
  }

  if (!request) {
    if (!ended) return null;
    return (
      <p className="permission-ended" role="status">
        <TextWithCode text={endedText(ended, selfId)} />
      </p>
    );
  }
  const more = session.permissionRequests.length - 1;
  return (
    <section className="permission-request" aria-labelledby={headingId}>
      <h2 id={headingId} className="permission-title">
        Permission request
      </h2>
      <RequestBody request={request} elsewhere={session.isOwner ? null : session.ownerName} />
      <label htmlFor={messageId} className="field-label">
        Message to the agent with a deny (optional)
      </label>
      <input id={messageId} type="text" value={message} maxLength={4000} onChange={(event) => setMessage(event.target.value)} />
      <div className="permission-actions">
        <button type="button" className="button button--primary" disabled={busy} onClick={() => void answer('allow')}>
          Allow
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => void answer('allow-session')}>
          Allow for this session
        </button>
        <button type="button" className="button button--danger" disabled={busy} onClick={() => void answer('deny')}>
          Deny
        </button>
        {session.isOwner && (
          <button type="button" className="button button--quiet" disabled={busy} onClick={() => void stopTurn()}>
            Stop the turn
          </button>
        )}
      </div>
      <p className="muted permission-rule">
        “Allow for this session” also allows <TextWithCode text={describeRule(request.sessionRule)} /> from now on, on any device.
      </p>
      {more > 0 && <p className="muted">{more === 1 ? 'One more request waits' : `${more} more requests wait`} after this one.</p>}
      <p className="permission-said" role="status">
        {said ?? ''}
      </p>
      <details className="permission-details">
        <summary>Details</summary>
        <p className="mono">
          tool {request.tool} · request {request.id} · generation {request.generation}
        </p>
      </details>
    </section>
  );
}
