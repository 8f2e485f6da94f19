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
  /** The argv (after the command), stdin and (when it differs from the session's) environment of a turn that sends `text`. */
  protected abstract invocation(text: string): { args: string[]; stdin: string; env?: NodeJS.ProcessEnv };
  /** Folds one stdout line of the running turn into the session. */
  protected abstract handleLine(line: string): void;
  /** Reads one stderr line of the running turn; adapters whose CLI reports there override it. */
  protected handleStderrLine?(line: string): void;

  /** One process per turn (turn-process.ts): SIGINT, then SIGKILL after 2 s, interrupts it. */
  protected startTurn(text: string): TurnProcess {
    const { args, stdin, env } = this.invocation(text);
    const onStderrLine = this.handleStderrLine ? (line: string) => this.safeHandle(line, 'stderr') : undefined;
    const spec = { command: this.command, args, cwd: this.workspace ?? '.', env: env ?? this.env, stdin, onStderrLine };
    return startTurnProcess(spec, (line) => this.safeHandle(line, 'stdout'));
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
