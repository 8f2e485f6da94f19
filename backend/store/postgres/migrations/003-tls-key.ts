/** PostgreSQL version 3: the TLS key of --tls self-signed, one for every instance on the database. */
import type { Migration } from '../../migration.ts';

export const migration: Migration = {
  version: 3,
  name: 'the TLS key of --tls self-signed, one for every instance on the database',
  sql: `
      CREATE TABLE tls_key (
        id SMALLINT PRIMARY KEY CHECK (id = 1),
        private_key TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
    `,
};
