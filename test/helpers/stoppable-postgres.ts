import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabaseServer } from '../../src/db/embedded-postgres.js';
import { applyMigrations } from '../../src/db/migrator.js';
import { createSilentLogger } from '../../src/logging/logger.js';

/**
 * A throwaway Postgres cluster of one test file's own, on a free port, that the test stops
 * (a database outage: connections are cut, new ones refused) and starts again on the same
 * port, so the Herald processes pointed at it find it back. Never the shared test server.
 */
export class StoppablePostgres {
  private running: EmbeddedDatabaseServer | undefined;

  private constructor(
    private readonly directory: string,
    private server: EmbeddedDatabaseServer,
  ) {
    this.running = server;
  }

  /** Initialises and starts a cluster in a temporary directory (a few seconds). */
  static async start(): Promise<StoppablePostgres> {
    const directory = await mkdtemp(path.join(tmpdir(), 'herald-stoppable-pg-'));
    // Persistent: stopping must keep the data for the restart; destroy() removes it.
    const server = await startEmbeddedPostgres(path.join(directory, 'data'), createSilentLogger(), { persistent: true });
    return new StoppablePostgres(directory, server);
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** A new database migrated by Herald's own migrator; its URL. */
  async createDatabase(name: string): Promise<string> {
    const url = await ensureDatabase(this.server.serverUrl, name);
    await applyMigrations(url, createSilentLogger());
    return url;
  }

  /** Stops the server (fast shutdown: sessions are terminated, as in a real outage). */
  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }

  /** Starts it again on the same port, with the same data. */
  async restart(): Promise<void> {
    if (this.running) return;
    this.server = await startEmbeddedPostgres(path.join(this.directory, 'data'), createSilentLogger(), { persistent: true, port: this.server.port });
    this.running = this.server;
  }

  /** Stops it and deletes its files. */
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.directory, { recursive: true, force: true });
  }
}
