/**
 * The session transcript, following the newest entry — as entries come, as the window or what
 * stands beside it changes size, after a move brings its "resumed on …" entry — unless the reader
 * scrolled up, who is then offered "Jump to latest". A long session shows its newest entries;
 * "Show earlier entries" loads the page before them. A session
 * whose agent changed shows a line before each agent's part (agent-part.tsx), and the earlier
 * agents' replies under their own names.
 */
import { Fragment, memo, useEffect, useId, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { agentLabel, agentParts } from '../../shared/agent-switch.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { AgentPartLine, agentPartText } from './agent-part.tsx';
import { formatClock } from '../model/format.ts';
import { TextWithCode } from './text-with-code.tsx';

const ROLE_LABEL: Record<TranscriptEntry['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool', system: 'Baton' };

/** One message; kept as it is while later entries arrive (entries keep their identity across activity). */
const Entry = memo(function Entry({ entry, who }: { entry: TranscriptEntry; who: string }) {
  return (
    <li className={`entry entry--${entry.role}`}>
      <div className="entry-meta">
        <span className="entry-who">{who}</span>
        <time dateTime={new Date(entry.at).toISOString()}>{formatClock(entry.at).slice(0, 8)}</time>
      </div>
      <div className="entry-text">{entry.role === 'tool' ? entry.text : <TextWithCode text={entry.text} />}</div>
    </li>
  );
});

/** How near the bottom (px) still counts as at the newest entry. */
const AT_END_PX = 40;

/**
 * Keeps the list `ref` scrolled to its end while the reader has not scrolled up: when `newest`
 * (the newest entry) changes, and whenever the list or its content changes size. Returns whether
 * it follows now, the scroll handler that tells, and a jump back to the end.
 */
function useFollowEnd(ref: RefObject<HTMLDivElement | null>, newest: string | undefined) {
  const following = useRef(true);
  /** Where the list was last scrolled to: only a move up from there is the reader leaving the end. */
  const lastTop = useRef(0);
  const [behind, setBehind] = useState(false);
  const toEnd = () => {
    const list = ref.current;
    if (!list) return;
    list.scrollTop = list.scrollHeight;
    lastTop.current = list.scrollTop;
  };
  useLayoutEffect(() => {
    if (following.current) toEnd();
  }, [newest]);
  useEffect(() => {
    const list = ref.current;
    if (!list || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (following.current) toEnd();
    });
    observer.observe(list);
    if (list.firstElementChild) observer.observe(list.firstElementChild);
    return () => observer.disconnect();
  }, [ref]);
  // A scroll event can come after the content grew again: it leaves the end only when the reader scrolled up.
  const onScroll = () => {
    const list = ref.current;
    if (!list) return;
    if (list.scrollHeight - list.scrollTop - list.clientHeight < AT_END_PX) following.current = true;
    else if (list.scrollTop < lastTop.current) following.current = false;
    lastTop.current = list.scrollTop;
    setBehind(!following.current);
  };
  const jump = () => {
    following.current = true;
    setBehind(false);
    toEnd();
  };
  return { behind, onScroll, jump };
}

/** Renders the transcript region with one entry per message of the loaded window. */
export function Transcript({ session }: { session: SessionDetail }) {
  const { transcript: entries, agents, transcriptFrom: earlier } = session;
  const headingId = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const follow = useFollowEnd(listRef, entries.at(-1)?.id);
  const names = new Map(agents.map((agent) => [agent.id, agent.name]));
  const loadEarlier = useSessionsStore((state) => state.loadEarlier);
  const [loading, setLoading] = useState(false);
  const devices = useDevicesStore((state) => state.devices);
  const parts = agentParts(entries, session.providerChanges, session.provider);
  const partAt = new Map(parts.map((part, i) => [part.from, i]));
  const deviceName = (id: string | undefined) => devices.find((device) => device.id === id)?.name ?? null;
  let part = 0;

  return (
    <section className="panel transcript" aria-labelledby={headingId}>
      <h2 id={headingId} className="panel-title">
        Transcript
      </h2>
      <div ref={listRef} className="transcript-list" role="log" aria-labelledby={headingId} tabIndex={0} onScroll={follow.onScroll}>
        <ol className="transcript-entries">
          {earlier > 0 && (
            <li className="transcript-earlier">
              <button
                type="button"
                className="button button--quiet"
                disabled={loading}
                onClick={() => {
                  setLoading(true);
                  void loadEarlier(session.id).finally(() => setLoading(false));
                }}
              >
                {loading ? 'Loading earlier entries…' : `Show earlier entries (${earlier} more)`}
              </button>
            </li>
          )}
          {entries.length === 0 && earlier === 0 && <li className="muted empty">Nothing yet.</li>}
          {entries.map((entry, index) => {
            const starts = parts.length > 1 ? partAt.get(index) : undefined;
            if (starts !== undefined) part = starts;
            const earlierPart = part < parts.length - 1 ? parts[part] : undefined;
            const agent = earlierPart ? agentLabel(earlierPart.provider) : (names.get(entry.agentId) ?? ROLE_LABEL.assistant);
            const line = starts === undefined ? null : parts[starts]!;
            return (
              <Fragment key={entry.id}>
                {line && (
                  <AgentPartLine text={agentPartText(line, parts[starts! - 1]?.provider ?? null, deviceName(line.change?.deviceId))} />
                )}
                <Entry entry={entry} who={entry.role === 'assistant' ? agent : ROLE_LABEL[entry.role]} />
              </Fragment>
            );
          })}
        </ol>
      </div>
      {follow.behind && (
        <button type="button" className="button transcript-jump" onClick={follow.jump}>
          Jump to latest
        </button>
      )}
    </section>
  );
}
