import type { z } from 'zod';
import type { Connection, Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../db/prisma-types.js';
import type { Clock } from '../shared/clock.js';
import { SecretKeyError, type SecretBox } from './secret-box.js';

/** A connected account as Herald's code reads it: never its secrets unless asked for. */
export interface ConnectionRecord {
  id: string;
  userId: string;
  provider: string;
  account: string;
  label: string;
  scopes: string[];
  settings: Record<string, unknown>;
  status: 'active' | 'needs_reconnect';
  /** Made by the operator (`npm run accounts`): may reach any address (src/net). */
  operatorTrusted: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What saving a connection takes: everything, secrets as plain values (they are sealed here). */
export interface ConnectionInput {
  provider: string;
  account: string;
  label: string;
  scopes?: string[];
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
  /** The operator made it (`npm run accounts`); a user's connection (the default) reaches only public addresses. */
  operatorTrusted?: boolean;
}

/**
 * Connected accounts (CalDAV servers, Google accounts, later mailboxes), one row per
 * (user, provider, account). Secrets are sealed with the {@link SecretBox} before they reach
 * the database and opened only on request, checked against the caller's schema; nothing
 * here ever logs them.
 */
export class ConnectionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Saves a connection (replacing the same account's), active, and returns it. */
  async save(userId: string, input: ConnectionInput): Promise<ConnectionRecord> {
    const now = this.clock.now();
    const data = {
      label: input.label,
      scopes: input.scopes ?? [],
      settings: input.settings as Prisma.InputJsonValue,
      secrets: this.box.sealJson(input.secrets),
      status: 'active',
      // Saved again through a connect form, an operator's connection becomes the user's own.
      operatorTrusted: input.operatorTrusted ?? false,
      updatedAt: now,
    };
    const row = await this.prisma.connection.upsert({
      where: { userId_provider_account: { userId, provider: input.provider, account: input.account } },
      create: { userId, provider: input.provider, account: input.account, ...data, createdAt: now },
      update: data,
    });
    return toRecord(row);
  }

  /** The user's connections, oldest first. */
  async list(userId: string): Promise<ConnectionRecord[]> {
    return (await this.prisma.connection.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } })).map(toRecord);
  }

  async find(userId: string, id: string): Promise<ConnectionRecord | undefined> {
    const row = await this.prisma.connection.findFirst({ where: { id, userId } });
    return row ? toRecord(row) : undefined;
  }

  /** The user's connection to `provider` (the most recently changed one). */
  async findByProvider(userId: string, provider: string): Promise<ConnectionRecord | undefined> {
    const row = await this.prisma.connection.findFirst({ where: { userId, provider }, orderBy: { updatedAt: 'desc' } });
    return row ? toRecord(row) : undefined;
  }

  /** Opens a connection's secrets and checks them; a wrong key or damaged data is a {@link SecretKeyError}. */
  async secrets<Schema extends z.ZodType>(connection: Pick<ConnectionRecord, 'id'>, schema: Schema): Promise<z.output<Schema>> {
    const row = await this.prisma.connection.findUniqueOrThrow({ where: { id: connection.id }, select: { secrets: true } });
    const parsed = schema.safeParse(this.box.openJson(row.secrets));
    if (!parsed.success) throw new SecretKeyError('A stored connection is missing some of its credentials. Connect the account again.');
    return parsed.data;
  }

  /** Replaces a connection's secrets (a refreshed access token). */
  async updateSecrets(id: string, secrets: Record<string, unknown>): Promise<void> {
    await this.prisma.connection.update({ where: { id }, data: { secrets: this.box.sealJson(secrets), updatedAt: this.clock.now() } });
  }

  /** Replaces the scopes a connection is used with (a feature stopped using it). */
  async updateScopes(id: string, scopes: string[]): Promise<void> {
    await this.prisma.connection.update({ where: { id }, data: { scopes, updatedAt: this.clock.now() } });
  }

  /** The provider revoked Herald's access: kept, but marked, so the user is asked to reconnect instead of retrying. */
  async markNeedsReconnect(id: string): Promise<void> {
    await this.prisma.connection.updateMany({ where: { id }, data: { status: 'needs_reconnect', updatedAt: this.clock.now() } });
  }

  /** Deletes a connection and its credentials; false when there was none. */
  async remove(userId: string, id: string): Promise<boolean> {
    const deleted = await this.prisma.connection.deleteMany({ where: { id, userId } });
    return deleted.count > 0;
  }
}

function toRecord(row: Connection): ConnectionRecord {
  return {
    id: row.id,
    userId: row.userId,
    provider: row.provider,
    account: row.account,
    label: row.label,
    scopes: row.scopes,
    settings: (row.settings ?? {}) as Record<string, unknown>,
    status: row.status === 'needs_reconnect' ? 'needs_reconnect' : 'active',
    operatorTrusted: row.operatorTrusted,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
