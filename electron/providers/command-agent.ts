/**
 * The command-line agent: any command configured on this device (an argv array, run without a
 * shell, in the workspace) that reads the prompt on stdin and answers on stdout. Each message is
 * one run of the command. It has no session state of its own to export, so after a handoff it
 * always gets summary continuation.
 */
import { PROVIDER_CAPABILITIES, type ProviderResult, type ResumeData } from '../../shared/provider.ts';
import { MAIN_AGENT, ProcessSession, type ProcessSessionOptions } from './process-session.ts';
import type { TurnExit } from './turn-process.ts';

/** The most stdout one answer keeps. */
const ANSWER_MAX_CHARS = 100_000;

export interface CommandAgentOptions extends Omit<ProcessSessionOptions, 'command'> {
  /** The command and its arguments, e.g. ['aider', '--message-file', '-']; argv[0] is looked up on PATH. */
  argv: readonly string[];
}

export class CommandAgentSession extends ProcessSession {
  readonly provider = 'command' as const;
  readonly capabilities = PROVIDER_CAPABILITIES.command;
  private readonly args: readonly string[];
  private answer: string[] = [];
  private answerChars = 0;

  constructor(options: CommandAgentOptions) {
    super({ command: options.argv[0] ?? '', env: options.env, clock: options.clock }, 'command');
    this.args = options.argv.slice(1);
  }

  protected mainAgentName(): string {
    return 'Command-line agent';
  }

  protected invocation(text: string): { args: string[]; stdin: string } {
    this.answer = [];
    this.answerChars = 0;
    return { args: [...this.args], stdin: text.endsWith('\n') ? text : `${text}\n` };
  }

  protected handleLine(line: string): void {
    if (this.answerChars >= ANSWER_MAX_CHARS) return;
    this.answer.push(line);
    this.answerChars += line.length + 1;
  }

  /** The whole stdout of the run becomes one assistant entry; a failed run is reported too. */
  protected override afterTurn(exit: TurnExit, interrupted: boolean): void {
    const text = this.answer.join('\n').trim();
    if (text !== '') this.state.addEntry('assistant', MAIN_AGENT, text.slice(0, ANSWER_MAX_CHARS));
    super.afterTurn(exit, interrupted);
  }

  async exportResumeData(): Promise<ProviderResult<ResumeData>> {
    return {
      ok: false,
      code: 'unsupported',
      message: 'The command-line agent has no session state to export; it continues from a summary.',
    };
  }

  async resumeFromImport(): Promise<ProviderResult> {
    return { ok: false, code: 'unsupported', message: 'The command-line agent cannot import a session; it continues from a summary.' };
  }
}
