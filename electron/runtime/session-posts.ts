/**
 * What other devices post to a session's sealed log on the backend for its owner: answers to its
 * permission requests (permissions/answer-relay.ts) and Move here requests (move-here.ts). The
 * owner reads each new post once, in order, and hands it to the part that takes its kind: the kind
 * it opens as, since each is sealed bound to its kind and its session. A post that opens as no kind
 * is the answers' part's to refuse (the log was the answers' first). One read per session at a
 * time, again if asked meanwhile; the cursor moves past a post once its part has taken it.
 */
import type { SessionAnswer } from '../../shared/api/sessions.ts';
import type { LocalState } from '../local-state/local-state.ts';
import { EVENT_PAGE_SIZE, type BackendPort } from '../ports/backend.ts';
import type { SealPort } from '../ports/seal.ts';

/** The kinds of post a session's log carries, as each is sealed. */
export type PostKind = 'permission-answer' | 'move-here-request';

const KINDS: readonly PostKind[] = ['permission-answer', 'move-here-request'];

/** A part that takes one kind of post. */
export interface PostHandler {
  /** Acts on `posted`, opened as `body` (unchecked; undefined when it opened as no kind), or records why not. */
  take(sessionId: string, posted: SessionAnswer, body: unknown): Promise<void>;
}

export interface SessionPostsDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  backend: Pick<BackendPort, 'listAnswers'>;
  seal: Pick<SealPort, 'openJson'>;
  /** The part that takes each kind; the answers' part also takes what opens as no kind, and refuses it. */
  handlers: Readonly<Record<PostKind, PostHandler>>;
}

export class SessionPosts {
  private readonly pulling = new Map<string, Promise<void>>();

  constructor(private readonly deps: SessionPostsDeps) {}

  /** Reads the session's new posts and hands each to its part (owner only; one read per session at a time, again if asked meanwhile). */
  pull(sessionId: string): Promise<void> {
    const running = this.pulling.get(sessionId);
    if (running) return running.then(() => this.pull(sessionId));
    const pull = this.pullPages(sessionId).finally(() => this.pulling.delete(sessionId));
    this.pulling.set(sessionId, pull);
    return pull;
  }

  private async pullPages(sessionId: string): Promise<void> {
    for (;;) {
      const session = this.deps.state.readSession(sessionId);
      if (!session || session.ownerDeviceId !== this.deps.selfId) return;
      const page = await this.deps.backend.listAnswers(sessionId, session.permissions.answerCursor);
      if (!page.ok || page.value.length === 0) return;
      for (const posted of page.value) {
        await this.route(sessionId, posted);
        this.deps.state.updateSession(sessionId, (s) => {
          s.permissions.answerCursor = Math.max(s.permissions.answerCursor, posted.seq);
        });
      }
      if (page.value.length < EVENT_PAGE_SIZE) return;
    }
  }

  /** Hands `posted` to the part of the kind it opens as. */
  private route(sessionId: string, posted: SessionAnswer): Promise<void> {
    for (const kind of KINDS) {
      const opened = this.deps.seal.openJson(posted.sealedBody, { kind, sessionId });
      if (opened.ok) return this.deps.handlers[kind].take(sessionId, posted, opened.value);
    }
    return this.deps.handlers['permission-answer'].take(sessionId, posted, undefined);
  }
}
