/**
 * Sessions whose every turn is one child process that reads its input on stdin and reports on
 * stdout, line by line (Claude Code, the command agent). The lifecycle (queue, interrupt, stop) is
 * turn-session.ts; subclasses say how a turn is invoked and how its output lines become events.
 */
import { startTurnProcess, type TurnProcess } from './turn-process.ts';
import { MAIN_AGENT, TurnSession, type TurnSessionOptions } from './turn-session.ts';

export { MAIN_AGENT };
export type ProcessSessionOptions = TurnSessionOptions;

export abstract class ProcessSession extends TurnSession {
  /** The running turn's process (null between turns), for writeInput() and endInput(). */
  private process: TurnProcess | null = null;

  /**
   * The argv (after the command), stdin and (when it differs from the session's) environment of a
   * turn that sends `text`; `keepStdinOpen` leaves stdin open for writeInput() until endInput().
   */
  protected abstract invocation(text: string): { args: string[]; stdin: string; env?: NodeJS.ProcessEnv; keepStdinOpen?: boolean };
  /** Folds one stdout line of the running turn into the session. */
  protected abstract handleLine(line: string): void;
  /** Reads one stderr line of the running turn; adapters whose CLI reports there override it. */
  protected handleStderrLine?(line: string): void;

  /** One process per turn (turn-process.ts): SIGINT, then SIGKILL after 2 s, interrupts it. */
  protected startTurn(text: string): TurnProcess {
    const { args, stdin, env, keepStdinOpen } = this.invocation(text);
    const onStderrLine = this.handleStderrLine ? (line: string) => this.safeHandle(line, 'stderr') : undefined;
    const cwd = this.workspace ?? '.';
    const spec = { command: this.command, args, cwd, env: env ?? this.env, stdin, keepStdinOpen, onStderrLine };
    const turn = startTurnProcess(spec, (line) => this.safeHandle(line, 'stdout'));
    this.process = turn;
    void turn.exited.then(() => {
      if (this.process === turn) this.process = null;
    });
    return turn;
  }

  /** Writes to the running turn's open stdin; false when there is none. */
  protected writeInput(text: string): boolean {
    return this.process?.write(text) ?? false;
  }

  /** Closes the running turn's stdin (its CLI then finishes). */
  protected endInput(): void {
    this.process?.endInput();
  }

  private safeHandle(line: string, stream: 'stdout' | 'stderr'): void {
    try {
      if (stream === 'stdout') this.handleLine(line);
      else this.handleStderrLine?.(line);
    } catch (error) {
      this.state.addEntry('system', MAIN_AGENT, `Could not read a line of ${this.mainAgentName()} output: ${(error as Error).message}`);
    }
  }
}
