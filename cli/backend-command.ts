import type { Command } from './command.ts';

export const command: Command = {
  summary: 'run the sync backend',
  usage: 'Usage: baton backend --data DIR [--host 127.0.0.1] [--port N]',
  async run() {
    console.error('baton backend: not built yet');
    return 1;
  },
};
