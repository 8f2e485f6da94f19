/** `baton <subcommand>`: dispatches to one module per subcommand, each with its own --help. */
import { UsageError, type Command } from './command.ts';

const commands: Record<string, () => Promise<{ command: Command }>> = {
  backend: () => import('./backend-command.ts'),
  demo: () => import('./demo-command.ts'),
  device: () => import('./device-command.ts'),
  invite: () => import('./invite-command.ts'),
  mcp: () => import('./mcp-command.ts'),
  open: () => import('./open-command.ts'),
  packet: () => import('./packet-command.ts'),
  sessions: () => import('./sessions-command.ts'),
};

const HELP = (names: string[], summaries: string[]) =>
  [
    'Usage: baton <command> [options]',
    '',
    'Commands:',
    ...names.map((name, i) => `  ${name.padEnd(10)} ${summaries[i]}`),
    '',
    'Run `baton <command> --help` for the options of a command.',
  ].join('\n');

/** Runs `baton` with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const names = Object.keys(commands);
    const loaded = await Promise.all(names.map((n) => commands[n]!()));
    console.log(
      HELP(
        names,
        loaded.map((m) => m.command.summary),
      ),
    );
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) {
    console.error(`baton: unknown command "${name}". Run \`baton --help\` for the list.`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`baton ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    console.error(`baton ${name}: ${(error as Error).message}`);
    return 1;
  }
}
