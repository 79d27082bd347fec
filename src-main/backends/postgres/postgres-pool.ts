/**
 * Connections to PostgreSQL (one pool per connection config, shared by every
 * value it serves) and driver errors as FolioErrors, for postgres.ts.
 */
import pg from 'pg';
import { FolioError } from '../../engine/errors.ts';

export interface PostgresConfig {
  /** a libpq connection string (else DATABASE_URL, else PGHOST/PGPORT/PGUSER/PGDATABASE/PGPASSWORD) */
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /** the Folio table keeping line indexes (default folio_index) */
  indexTable?: string;
  /** connections per pool (default 4) */
  maxConnections?: number;
}

const pools = new Map<string, pg.Pool>();

export function poolFor(cfg: PostgresConfig): pg.Pool {
  const key = JSON.stringify(cfg);
  let pool = pools.get(key);
  if (!pool) {
    const connectionString = cfg.connectionString ?? (cfg.host ? undefined : process.env.DATABASE_URL);
    pool = new pg.Pool({
      ...(connectionString ? { connectionString } : {}),
      ...(cfg.host ? { host: cfg.host } : {}),
      ...(cfg.port ? { port: cfg.port } : {}),
      ...(cfg.user ? { user: cfg.user } : {}),
      ...(cfg.password ? { password: cfg.password } : {}),
      ...(cfg.database ? { database: cfg.database } : {}),
      max: cfg.maxConnections ?? 4,
      idleTimeoutMillis: 10_000,
      // A CLI run ends when its work does, not 10 s later.
      allowExitOnIdle: true,
    });
    // An idle client's error (the server went away) must not crash the process.
    pool.on('error', () => undefined);
    pools.set(key, pool);
  }
  return pool;
}

/** End every pool (tests, a server shutting down). */
export async function closePostgresPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}

/** A driver error as a FolioError: missing tables and columns are not_found, the rest io_error. */
export function pgError(err: unknown, locator: string): FolioError {
  if (err instanceof FolioError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === '42P01' || e.code === '42703' || e.code === '3F000') {
    return new FolioError('not_found', `${locator}: ${e.message}`, { path: locator, sql_state: e.code });
  }
  if (e.code === '42501') return new FolioError('permission_denied', `${locator}: ${e.message}`, { path: locator, sql_state: e.code });
  if (e.code === '22021' || e.code === '22P02') {
    return new FolioError('encoding_mismatch', `${locator}: ${e.message}`, { path: locator, sql_state: e.code });
  }
  if (e.code === '54000') return new FolioError('too_large', `${locator}: ${e.message}`, { path: locator, sql_state: e.code });
  return new FolioError('io_error', `${locator}: PostgreSQL: ${e.message ?? String(err)}`, { path: locator, ...(e.code ? { sql_state: e.code } : {}) });
}
