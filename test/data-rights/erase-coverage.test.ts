import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * DELETE MY DATA deletes the User row and relies on ON DELETE CASCADE for everything the
 * user owns (src/data-rights/README.md). This walks the migrated schema, so a table added
 * later (mail drafts, say) that would survive an erase, or block it, fails here even when
 * no test puts a row in it.
 */
describe('every user-owned table is erased with its user', () => {
  let database: TestDatabase;
  let foreignKeys: Array<{ table: string; columns: string[]; references: string; onDelete: string }>;
  let userIdTables: string[];

  beforeAll(async () => {
    database = await createTestDatabase(2);
    const { rows } = await database.pool.query<{ table: string; columns: string[]; references: string; on_delete: string }>(`
      SELECT c.conrelid::regclass::text AS table,
             array_agg(a.attname ORDER BY a.attnum)::text[] AS columns,
             c.confrelid::regclass::text AS references,
             c.confdeltype::text AS on_delete
        FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
       WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
       GROUP BY c.oid, c.conrelid, c.confrelid, c.confdeltype`);
    foreignKeys = rows.map((row) => ({ table: row.table.replaceAll('"', ''), columns: row.columns, references: row.references.replaceAll('"', ''), onDelete: row.on_delete }));
    userIdTables = (
      await database.pool.query<{ table_name: string }>(`SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'userId'`)
    ).rows.map((row) => row.table_name);
  });
  afterAll(async () => {
    await database.drop();
  });

  /** Tables deleted (by cascade) when a User row is: the closure of cascading foreign keys from User. */
  function cascadeClosure(): Set<string> {
    const owned = new Set(['User']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const key of foreignKeys) {
        if (key.onDelete === 'c' && owned.has(key.references) && !owned.has(key.table)) {
          owned.add(key.table);
          grew = true;
        }
      }
    }
    return owned;
  }

  it('every table with a userId column is deleted with its user (a cascading key to User, or to a row of theirs that has one)', () => {
    expect(userIdTables.length).toBeGreaterThan(10);
    const owned = cascadeClosure();
    expect(userIdTables.filter((table) => !owned.has(table))).toEqual([]);
  });

  it('nothing outside the user\'s own rows references them in a way that would keep a row or block the delete', () => {
    const owned = cascadeClosure();
    expect([...owned]).toEqual(expect.arrayContaining(['Message', 'Turn', 'PlanRun', 'StepRun', 'Reminder', 'ReminderDelivery', 'ListItem', 'Connection', 'CalendarSettings', 'Page']));
    // A key into the user's rows from a table that is not itself erased: it must cascade too
    // (SET NULL would keep the row with the user's data in its other columns; NO ACTION would block the erase).
    const offending = foreignKeys.filter((key) => owned.has(key.references) && !owned.has(key.table));
    expect(offending).toEqual([]);
  });
});
