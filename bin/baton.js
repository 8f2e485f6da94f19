#!/usr/bin/env node
// The `baton` command. Loads the TypeScript sources through tsx, so `npx baton …` works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
