/**
 * The session's handoff history: its moves newest first, a page at a time (Show older moves loads the
 * next), which device asked for each, how it ended, when, and whether its checkpoint is kept; codes in Details. A move that continued with another
 * agent says so, and a Switch agent on one device is listed among the moves. Each completed move
 * offers Fork from here.
 */
import { useEffect, useId, useState } from 'react';
import { describeProviderChange, type ProviderChange } from '../../shared/agent-switch.ts';
import type { HandoffView } from '../../shared/device-api.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { ForkButton } from './fork-button.tsx';
import { formatDay } from '../model/format.ts';
import { handoffCodes, handoffOutcome } from '../model/session-state.ts';

type Item = { kind: 'move'; at: number; handoff: HandoffView } | { kind: 'switch'; at: number; change: ProviderChange };

/** The moves and the switches newest first, by when each was requested or made; with older moves left to load, no switch before them. */
function newestFirst(history: HandoffView[], changes: readonly ProviderChange[], older: boolean): Item[] {
  const moves: Item[] = history.map((handoff) => ({ kind: 'move', at: handoff.history[0]?.at ?? 0, handoff }));
  const from = older ? Math.min(...moves.map((m) => m.at)) : -Infinity;
  const switches: Item[] = changes
    .filter((c) => c.handoffId === null && c.at >= from)
    .map((change) => ({ kind: 'switch', at: change.at, change }));
  return [...moves, ...switches].sort((a, b) => b.at - a.at);
}

/** Which device asked for a move, in words: its source with Move, or its target with Move here. */
function askedOn(handoff: HandoffView): string {
  if (handoff.initiatorDeviceId === handoff.targetDeviceId) return `asked on ${handoff.targetName} with Move here`;
  return `asked on ${handoff.sourceName}`;
}

/** One Switch agent on one device, in the history. */
function SwitchItem({ change }: { change: ProviderChange }) {
  const device = useDevicesStore((state) => state.devices.find((d) => d.id === change.deviceId)?.name ?? 'this device');
  return (
    <li className="history-item history-item--switch">
      <span className="history-route">Switched agent on {device}</span>
      <span className="history-outcome">{describeProviderChange(change)} · summary continuation</span>
      <time className="muted" dateTime={new Date(change.at).toISOString()}>
        {formatDay(change.at)}
      </time>
    </li>
  );
}

/** Renders the history region of one session run by `provider`, loaded once and kept live by handoff events. */
export function HandoffHistory({ sessionId, provider }: { sessionId: string; provider: string }) {
  const headingId = useId();
  const history = useHandoffsStore((state) => state.sessions[sessionId]?.history);
  const older = useHandoffsStore((state) => state.sessions[sessionId]?.olderHistory === true);
  const loadHistory = useHandoffsStore((state) => state.loadHistory);
  const loadOlderHistory = useHandoffsStore((state) => state.loadOlderHistory);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const showOlder = () => {
    setLoadingOlder(true);
    loadOlderHistory(sessionId)
      .catch(() => undefined)
      .finally(() => setLoadingOlder(false));
  };
  const changes = useSessionsStore((state) => state.details[sessionId]?.providerChanges) ?? [];
  const switched = changes.some((c) => c.handoffId === null);
  useEffect(() => {
    loadHistory(sessionId).catch(() => undefined);
  }, [sessionId, loadHistory]);

  return (
    <section className="panel history" aria-labelledby={headingId}>
      <h2 id={headingId} className="panel-title">
        Handoff history
      </h2>
      {history === undefined && <p className="muted">Loading…</p>}
      {history?.length === 0 && !switched && <p className="muted empty">This session has not moved yet.</p>}
      {history && (history.length > 0 || switched) && (
        <ol className="history-list">
          {newestFirst(history, changes, older).map((item) => {
            if (item.kind === 'switch') return <SwitchItem key={`switch-${item.at}`} change={item.change} />;
            const { handoff } = item;
            const at = handoff.history[0]?.at;
            return (
              <li key={handoff.id} className={`history-item history-item--${handoff.state}`}>
                <span className="history-route">
                  {handoff.sourceName} → {handoff.targetName}
                </span>
                <span className="history-outcome">{handoffOutcome(handoff)}</span>
                <span className="history-asker">{askedOn(handoff)}</span>
                {handoff.providerChange && (
                  <span className="history-agent">Continued with another agent: {describeProviderChange(handoff.providerChange)}</span>
                )}
                {handoff.state === 'completed' && !handoff.checkpointKept && (
                  <span className="muted history-collected">checkpoint no longer kept</span>
                )}
                {at !== undefined && (
                  <time className="muted" dateTime={new Date(at).toISOString()}>
                    {formatDay(at)}
                  </time>
                )}
                {handoff.state === 'completed' && <ForkButton handoff={handoff} provider={provider} />}
                <details className="move-details history-details">
                  <summary>Details</summary>
                  {handoffCodes(handoff).map((code) => (
                    <code key={code}>{code} </code>
                  ))}
                </details>
              </li>
            );
          })}
        </ol>
      )}
      {older && (
        <button type="button" className="button" onClick={showOlder} disabled={loadingOlder}>
          {loadingOlder ? 'Loading older moves…' : 'Show older moves'}
        </button>
      )}
    </section>
  );
}
