/** One versioned schema migration of a store (each dialect's migrations/ folder holds one file per version). */
export interface Migration {
  /** One more than the version before it; never changed once released. */
  version: number;
  /** What it does, recorded with its version in the database's schema_migrations table. */
  name: string;
  /** The statements it runs, all in one transaction with its version row. */
  sql: string;
}
