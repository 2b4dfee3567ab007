import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { expectedDatabase, loadDatamodel, prismaConstraintName, schemaDrift } from './schema-drift.js';

// The migrated database must be exactly what prisma/schema.prisma describes: if someone
// edits the schema without a migration (or a migration without the schema), the Prisma
// client and the database disagree at run time. See ./schema-drift.ts for how it compares.

const schemaPath = fileURLToPath(new URL('../../prisma/schema.prisma', import.meta.url));
const prismaSchema = readFileSync(schemaPath, 'utf8');

describe('the migrated database matches prisma/schema.prisma', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    // A clone of the template that Herald's own migrator built from prisma/migrations.
    database = await createTestDatabase(2);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('has no drift: tables, columns, types, nullability, defaults, enums, indexes and foreign keys', async () => {
    expect(await schemaDrift(database.pool, prismaSchema)).toEqual([]);
  });

  it('checks every model, enum and index the schema declares', () => {
    const datamodel = loadDatamodel(prismaSchema);
    const { shape, unchecked } = expectedDatabase(datamodel);
    expect(unchecked).toEqual([]);
    expect([...shape.tables.keys()].sort()).toEqual(datamodel.models.map((model) => model.dbName ?? model.name).sort());
    expect(shape.enums.size).toBe(datamodel.enums.length);
    expect(shape.indexes.size).toBe(datamodel.indexes.length);
    // The foundation's tables, at least.
    expect([...shape.tables.keys()]).toEqual(expect.arrayContaining(['User', 'Fact', 'Message', 'InboundDedupe', 'OutboundMessage']));
    expect(shape.tables.get('Message')?.get('createdAt')).toEqual({ type: 'timestamp(3) without time zone', nullable: false, default: 'CURRENT_TIMESTAMP' });
    expect(shape.tables.get('User')?.get('id')).toEqual({ type: 'uuid', nullable: false, default: null });
    expect(shape.tables.get('User')?.get('preferredChannel')).toEqual({ type: 'enum:Channel', nullable: false, default: `'sms'::"Channel"` });
  });

  it('ignores the job queue\'s pgboss schema', async () => {
    await database.pool.query('CREATE SCHEMA IF NOT EXISTS pgboss; CREATE TABLE IF NOT EXISTS pgboss.drift_probe (id int)');
    expect(await schemaDrift(database.pool, prismaSchema)).toEqual([]);
  });
});

describe('drift is reported', () => {
  let database: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase(1);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  /**
   * Applies `sql` inside a transaction, compares within it, and rolls back: Postgres DDL is
   * transactional, so every case starts from the pristine migrated database.
   */
  async function driftAfter(sql: string, schema = prismaSchema): Promise<string[]> {
    await client.query('BEGIN');
    try {
      if (sql) await client.query(sql);
      return await schemaDrift(client, schema);
    } finally {
      await client.query('ROLLBACK');
    }
  }

  it('starts from a database without drift', async () => {
    expect(await driftAfter('')).toEqual([]);
  });

  it.each([
    ['an extra column', 'ALTER TABLE "Fact" ADD COLUMN "extra" text', /^"Fact"\."extra": column is not in schema\.prisma$/],
    ['a missing column', 'ALTER TABLE "Fact" DROP COLUMN "content"', /^"Fact"\."content": column is missing$/],
    ['a changed type', 'ALTER TABLE "Message" ALTER COLUMN "tokenCount" TYPE bigint', /^"Message"\."tokenCount": type is bigint, schema\.prisma says integer$/],
    ['timestamp precision', 'ALTER TABLE "Message" ALTER COLUMN "createdAt" TYPE timestamp(6)', /"Message"\."createdAt": type is timestamp\(6\)/],
    ['text instead of uuid', 'ALTER TABLE "InboundDedupe" ALTER COLUMN "messageId" TYPE text', /"InboundDedupe"\."messageId": type is text, schema\.prisma says uuid/],
    ['a lost NOT NULL', 'ALTER TABLE "User" ALTER COLUMN "timezone" DROP NOT NULL', /^"User"\."timezone": nullable in the database, required in schema\.prisma$/],
    ['an added NOT NULL', 'ALTER TABLE "User" ALTER COLUMN "name" SET NOT NULL', /^"User"\."name": NOT NULL in the database, optional in schema\.prisma$/],
    ['a changed literal default', 'ALTER TABLE "User" ALTER COLUMN "optedOut" SET DEFAULT true', /^"User"\."optedOut": default is true, schema\.prisma says false$/],
    ['a lost now() default', 'ALTER TABLE "Message" ALTER COLUMN "createdAt" DROP DEFAULT', /^"Message"\."createdAt": default is none, schema\.prisma says CURRENT_TIMESTAMP$/],
    ['a changed enum default', `ALTER TABLE "User" ALTER COLUMN "preferredChannel" SET DEFAULT 'whatsapp'`, /"User"\."preferredChannel": default is 'whatsapp'::"Channel", schema\.prisma says 'sms'::"Channel"/],
    ['an extra DB default', `ALTER TABLE "Fact" ALTER COLUMN "category" SET DEFAULT 'misc'`, /"Fact"\."category": default is 'misc'::text, schema\.prisma says none/],
    ['an enum column turned text', 'ALTER TABLE "Message" ALTER COLUMN "role" TYPE text', /"Message"\."role": type is text, schema\.prisma says enum:MessageRole/],
    ['an extra enum value', `ALTER TYPE "Channel" ADD VALUE 'telegram'`, /^enum "Channel": values are \[sms, whatsapp, rcs, telegram\], schema\.prisma says \[sms, whatsapp, rcs\]$/],
    ['an enum value renamed', `ALTER TYPE "MessageRole" RENAME VALUE 'assistant' TO 'bot'`, /^enum "MessageRole": values are \[user, bot\]/],
    ['an extra enum type', `CREATE TYPE "Mood" AS ENUM ('happy')`, /^enum "Mood" is not in schema\.prisma$/],
    ['an extra table', 'CREATE TABLE "Stray" ("id" integer)', /^table "Stray" is not in schema\.prisma$/],
    ['a dropped table', 'DROP TABLE "InboundDedupe"', /^table "InboundDedupe" is missing$/],
    ['index columns reordered', 'DROP INDEX "Message_userId_createdAt_idx"; CREATE INDEX "Message_userId_createdAt_idx" ON "Message"("createdAt", "userId")',
      /^index "Message_userId_createdAt_idx": normal btree on "Message"\(createdAt, userId\), schema\.prisma says normal btree on "Message"\(userId, createdAt\)$/],
    ['a descending key', 'DROP INDEX "Message_userId_createdAt_idx"; CREATE INDEX "Message_userId_createdAt_idx" ON "Message"("userId", "createdAt" DESC)', /"Message"\(userId, createdAt DESC\)/],
    ['a unique index that is no longer unique', 'DROP INDEX "User_phone_key"; CREATE INDEX "User_phone_key" ON "User"("phone")', /^index "User_phone_key": normal btree on "User"\(phone\), schema\.prisma says unique btree/],
    ['a missing index', 'DROP INDEX "Message_inboundStatus_userId_idx"', /^index "Message_inboundStatus_userId_idx" \(normal btree on "Message"\(inboundStatus, userId\)\) is missing$/],
    ['an extra index', 'CREATE INDEX "Fact_content_idx" ON "Fact"("content")', /^index "Fact_content_idx" \(normal btree on "Fact"\(content\)\) is not in schema\.prisma$/],
    ['a hash index', 'DROP INDEX "Turn_userId_startedAt_idx"; CREATE INDEX "Turn_userId_startedAt_idx" ON "Turn" USING hash ("userId")', /index "Turn_userId_startedAt_idx": normal hash/],
    ['a partial index', `DROP INDEX "User_phone_key"; CREATE UNIQUE INDEX "User_phone_key" ON "User"("phone") WHERE "optedOut" = false`, /"User"\(phone, \(partial\)\)/],
    ['a renamed primary key', 'ALTER TABLE "Fact" RENAME CONSTRAINT "Fact_pkey" TO "Fact_primary"', /^index "Fact_pkey" \(primary btree on "Fact"\(id\)\) is missing$/],
    ['a different ON DELETE', 'ALTER TABLE "Message" DROP CONSTRAINT "Message_turnId_fkey"; ALTER TABLE "Message" ADD CONSTRAINT "Message_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE CASCADE ON UPDATE CASCADE',
      /^foreign key "Message_turnId_fkey": .* ON DELETE Cascade ON UPDATE Cascade, schema\.prisma says .* ON DELETE SetNull ON UPDATE Cascade$/],
    ['a different ON UPDATE', 'ALTER TABLE "Fact" DROP CONSTRAINT "Fact_userId_fkey"; ALTER TABLE "Fact" ADD CONSTRAINT "Fact_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE',
      /^foreign key "Fact_userId_fkey": .* ON UPDATE NoAction, schema\.prisma says .* ON UPDATE Cascade$/],
    ['a missing foreign key', 'ALTER TABLE "OutboundMessage" DROP CONSTRAINT "OutboundMessage_userId_fkey"', /^foreign key "OutboundMessage_userId_fkey" \(.*\) is missing$/],
    ['an extra foreign key', 'ALTER TABLE "InboundDedupe" ADD CONSTRAINT "InboundDedupe_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id")',
      /^foreign key "InboundDedupe_messageId_fkey" \(.*\) is not in schema\.prisma$/],
    ['a check constraint', `ALTER TABLE "User" ADD CONSTRAINT "phone_shape" CHECK ("phone" LIKE '+%')`, /^constraint "phone_shape" on "User" \(CHECK .*\) is not in schema\.prisma$/],
  ])('%s', async (_what, sql, expected) => {
    const drift = await driftAfter(sql);
    expect(drift.length, drift.join('\n')).toBeGreaterThan(0);
    expect(drift.some((line) => expected.test(line)), `none of these matches ${expected}:\n${drift.join('\n')}`).toBe(true);
  });

  it('reports a new model that has no migration yet, so future models are checked automatically', async () => {
    const withNewModel = `${prismaSchema}
model DriftProbe {
  id        String   @id @default(uuid(7)) @db.Uuid
  label     String   @db.VarChar(40)
  createdAt DateTime @default(now())

  @@index([label])
}
`;
    const drift = await driftAfter('', withNewModel);
    expect(drift).toEqual(['table "DriftProbe" is missing', 'index "DriftProbe_pkey" (primary btree on "DriftProbe"(id)) is missing', 'index "DriftProbe_label_idx" (normal btree on "DriftProbe"(label)) is missing']);
  });

  it('reports a new field, enum value or index in schema.prisma that no migration added', async () => {
    const edited = prismaSchema
      .replace(/(model Fact \{\n)/, '$1  pinned Boolean @default(false)\n')
      .replace(/(enum Channel \{\n)/, '$1  telegram\n')
      .replace(/(model InboundDedupe \{[^}]*?)(\n\})/, '$1\n\n  @@index([receivedAt])$2');
    expect(edited).not.toBe(prismaSchema);
    const drift = await driftAfter('', edited);
    expect(drift).toEqual(
      expect.arrayContaining([
        '"Fact"."pinned": column is missing',
        'enum "Channel": values are [sms, whatsapp, rcs], schema.prisma says [telegram, sms, whatsapp, rcs]',
        'index "InboundDedupe_receivedAt_idx" (normal btree on "InboundDedupe"(receivedAt)) is missing',
      ]),
    );
  });
});

describe('the comparison follows Prisma\'s conventions for features Herald does not use yet', () => {
  // What `prisma migrate diff --from-empty --to-schema-datamodel` produces for this schema,
  // written out by hand: mapped names, autoincrement, native types, lists, a descending
  // index, negative and quoted literals, and both default referential actions.
  const syntheticSchema = `
datasource db {
  provider = "postgresql"
}

enum Colour {
  red  @map("RED")
  blue

  @@map("colour")
}

model Owner {
  id      Int      @id @default(autoincrement())
  name    String   @map("display_name") @db.VarChar(20)
  colour  Colour   @default(blue)
  tags    String[]
  score   Float    @default(1.5)
  balance Int      @default(-1)
  note    String   @default("it's")
  seen    DateTime @default(now()) @db.Timestamptz(6)
  owned   Pet[]    @relation("owned")
  sat     Pet[]    @relation("sat")

  @@unique([name, colour])
  @@index([colour(sort: Desc)])
  @@map("owners")
}

model Pet {
  id       String @id @db.Uuid
  ownerId  Int
  sitterId Int?
  owner    Owner  @relation("owned", fields: [ownerId], references: [id])
  sitter   Owner? @relation("sat", fields: [sitterId], references: [id])
}
`;
  const syntheticSql = `
CREATE TYPE "colour" AS ENUM ('RED', 'blue');
CREATE TABLE "owners" (
    "id" SERIAL NOT NULL,
    "display_name" VARCHAR(20) NOT NULL,
    "colour" "colour" NOT NULL DEFAULT 'blue',
    "tags" TEXT[],
    "score" DOUBLE PRECISION NOT NULL DEFAULT 1.5,
    "balance" INTEGER NOT NULL DEFAULT -1,
    "note" TEXT NOT NULL DEFAULT 'it''s',
    "seen" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "owners_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "Pet" (
    "id" UUID NOT NULL,
    "ownerId" INTEGER NOT NULL,
    "sitterId" INTEGER,
    CONSTRAINT "Pet_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "owners_display_name_colour_key" ON "owners"("display_name", "colour");
CREATE INDEX "owners_colour_idx" ON "owners"("colour" DESC);
ALTER TABLE "Pet" ADD CONSTRAINT "Pet_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "owners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "Pet" ADD CONSTRAINT "Pet_sitterId_fkey" FOREIGN KEY ("sitterId") REFERENCES "owners"("id") ON DELETE SET NULL ON UPDATE CASCADE;
`;
  let database: { url: string; drop: () => Promise<void> };
  let client: pg.Client;

  beforeAll(async () => {
    database = await createEmptyDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(syntheticSql);
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('finds no drift where Prisma would find none', async () => {
    expect(await schemaDrift(client, syntheticSchema)).toEqual([]);
  });

  it('finds the default referential actions changed', async () => {
    const setOwnerKey = (onDelete: string) =>
      client.query(`ALTER TABLE "Pet" DROP CONSTRAINT "Pet_ownerId_fkey", ADD CONSTRAINT "Pet_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "owners"("id") ON DELETE ${onDelete} ON UPDATE CASCADE`);
    await setOwnerKey('CASCADE');
    try {
      expect(await schemaDrift(client, syntheticSchema)).toEqual([
        'foreign key "Pet_ownerId_fkey": "Pet"(ownerId) -> "owners"(id) ON DELETE Cascade ON UPDATE Cascade, schema.prisma says "Pet"(ownerId) -> "owners"(id) ON DELETE Restrict ON UPDATE Cascade',
      ]);
    } finally {
      // The other tests of this database compare against the schema as created.
      await setOwnerKey('RESTRICT');
    }
  });

  it('reports schema features it cannot check instead of skipping them', async () => {
    const drift = await schemaDrift(client, syntheticSchema.replace('tags    String[]', 'tags    String[] @default(["a"])'));
    expect(drift).toContain('unchecked (teach test/db/schema-drift.ts): Owner.tags: default ["a"]');
  });

  it('shortens long default names as Prisma does (63 characters)', () => {
    const name = prismaConstraintName('AVeryLongTableNameForTestingIdentifierLimits', ['firstLongColumnName', 'secondLongColumnName'], 'idx');
    expect(name).toHaveLength(63);
    expect(name.endsWith('_idx')).toBe(true);
    expect(prismaConstraintName('User', ['phone'], 'key')).toBe('User_phone_key');
    expect(prismaConstraintName('User', ['id'], 'pkey')).toBe('User_pkey');
  });
});
