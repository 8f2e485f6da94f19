/**
 * The SQLite store's migrations, oldest first: one file per version, named for it (NNN-what-it-does.ts).
 * A released migration is never edited, since databases already ran it: a change to the schema is the
 * next version, appended last (backend/README.md says how).
 */
import type { Migration } from '../../migration.ts';
import { migration as v001 } from './001-initial.ts';
import { migration as v002 } from './002-device-enrollment.ts';
import { migration as v003 } from './003-account-scoped-ids.ts';
import { migration as v004 } from './004-sealed-cancel-reason.ts';
import { migration as v005 } from './005-session-answers.ts';
import { migration as v006 } from './006-checkpoint-retention.ts';
import { migration as v007 } from './007-handoff-initiator.ts';
import { migration as v008 } from './008-handoff-commits.ts';
import { migration as v009 } from './009-bounded-session-posts.ts';

export const SQLITE_MIGRATIONS: readonly Migration[] = [v001, v002, v003, v004, v005, v006, v007, v008, v009];
