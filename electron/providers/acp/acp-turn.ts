/**
 * One prompt turn of an ACP session: the agent's process started when there is none (and
 * `initialize`d), the session opened in it when it is not (`session/new`, or `session/load` of the
 * session's id — which reads the agent's own session files, so an imported or adopted session
 * resumes the same way — then the level's settings), one `session/prompt`, and its updates until
 * the agent answers with a stop reason. The process stays for the next turn.
 *
 * An interrupt sends `session/cancel`, answers what is pending with `cancelled`, and waits for the
 * agent to end the prompt; an agent that does not within the grace time is killed (the next turn
 * starts it again and loads the session).
 */
import type { Result } from '../../../shared/errors.ts';
import type { TurnExit } from '../turn-process.ts';
import type { RunningTurn } from '../turn-session.ts';
import type { AcpConnection, AcpFailure } from './acp-connection.ts';

/** How long a setup request (session/new, session/load, a setting) may take. */
const SETUP_TIMEOUT_MS = 60_000;
/** How long an interrupted prompt may take to end before the agent is killed. */
const CANCEL_GRACE_MS = 5000;

/** What a turn needs of its session. */
export interface AcpTurnHost {
  /** The running agent, started (and initialized) when there is none; null when it could not start (already reported). */
  connect(): Promise<{ connection: AcpConnection; spawned: Promise<string | null> } | null>;
  /** The session's id in that agent, opened when it is not (new, or loaded); null when it could not be (already reported). */
  open(connection: AcpConnection): Promise<string | null>;
  /** Says something went wrong, in the agent's own words. */
  problem(text: string): void;
  /** The prompt ended (normally or not): what the agent streamed is written, what is pending is cancelled. */
  settle(): void;
  /** The agent is no good any more (killed, or it would not end a cancelled prompt). */
  discard(connection: AcpConnection): void;
}

const OK_EXIT: TurnExit = { code: 0, signal: null, spawnError: null, stderrTail: '' };

export class AcpTurn implements RunningTurn {
  readonly started: Promise<string | null>;
  readonly exited: Promise<TurnExit>;
  private connection: AcpConnection | null = null;
  private sessionId: string | null = null;
  private interrupted = false;
  private markStarted: (spawnError: string | null) => void = () => undefined;

  constructor(
    private readonly host: AcpTurnHost,
    private readonly label: string,
    private readonly text: string,
  ) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    this.exited = this.run().then(
      (exit) => {
        this.host.settle();
        return exit;
      },
      (error: unknown) => {
        this.host.problem(`${label} failed: ${(error as Error).message}`);
        this.host.settle();
        return { ...OK_EXIT, code: 1 };
      },
    );
  }

  /** Cancels the prompt and resolves once the turn has ended (the agent killed if it would not). */
  async interrupt(): Promise<TurnExit> {
    if (!this.interrupted) {
      this.interrupted = true;
      const { connection, sessionId } = this;
      this.host.settle();
      if (connection !== null && sessionId !== null) connection.cancel(sessionId);
      const timer = setTimeout(() => connection && this.host.discard(connection), CANCEL_GRACE_MS);
      void this.exited.finally(() => clearTimeout(timer));
    }
    return this.exited;
  }

  private async run(): Promise<TurnExit> {
    const connected = await this.host.connect();
    if (connected === null) {
      this.markStarted(null);
      return { ...OK_EXIT, code: 1 };
    }
    const spawnError = await connected.spawned;
    this.markStarted(spawnError);
    if (spawnError !== null) return { ...OK_EXIT, code: null, spawnError };
    this.connection = connected.connection;
    if (this.interrupted) return OK_EXIT;
    this.sessionId = await this.host.open(connected.connection);
    if (this.sessionId === null) return { ...OK_EXIT, code: 1 };
    if (this.interrupted) return OK_EXIT;
    const prompt = [{ type: 'text' as const, text: this.text }];
    const answered = await connected.connection.request('session/prompt', { sessionId: this.sessionId, prompt }, 24 * 3600_000);
    return this.ended(answered);
  }

  private ended(answered: Result<{ stopReason: string }, AcpFailure>): TurnExit {
    if (!answered.ok) {
      if (this.interrupted) return OK_EXIT;
      this.host.problem(`${this.label} did not finish the turn: ${answered.message}`);
      return { ...OK_EXIT, code: 1 };
    }
    const reason = answered.value.stopReason;
    if (reason === 'max_tokens') this.host.problem(`${this.label} stopped: the reply reached the model's token limit.`);
    else if (reason === 'max_turn_requests') this.host.problem(`${this.label} stopped: the turn reached its limit of model requests.`);
    else if (reason === 'refusal') this.host.problem(`${this.label} refused to go on with this turn.`);
    return OK_EXIT;
  }
}

/** Resolves a setup request, reporting a failure as "<label> refused <method>: …"; null on failure. */
export async function setup<T>(
  request: Promise<Result<T, AcpFailure>>,
  label: string,
  method: string,
  problem: (text: string) => void,
): Promise<T | null> {
  const result = await request;
  if (result.ok) return result.value;
  problem(`${label} refused ${method}: ${result.message}`);
  return null;
}

export { SETUP_TIMEOUT_MS };
