/**
 * Compares a live Postgres schema with what `prisma/schema.prisma` says it should be,
 * without Prisma's schema engine (not installed here, so no `prisma migrate diff`).
 *
 * The expectation is derived from the DMMF that `@prisma/prisma-schema-wasm` produces
 * (the same parser Prisma uses), applying Prisma's own Postgres conventions: default type
 * per scalar, native types, constraint names (`Table_col_key`, `_idx`, `_pkey`, `_fkey`),
 * default referential actions, and how defaults are written. The database side is read
 * from pg_catalog. Everything is driven by the DMMF, so new models, fields, enums and
 * indexes are checked without touching this file; a schema feature this file does not
 * know yet is reported as "unchecked" (so it fails loudly) rather than silently skipped.
 */
import { get_dmmf } from '@prisma/prisma-schema-wasm';

// ---------------------------------------------------------------------------
// The DMMF, as far as it is read here
// ---------------------------------------------------------------------------

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  schema: string | null;
  fields: DmmfField[];
}

interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: Array<{ name: string; dbName: string | null }>;
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: Array<{ name: string; sortOrder?: 'asc' | 'desc'; length?: number; operatorClass?: string }>;
}

/** The part of Prisma's DMMF this comparison reads. */
export interface Datamodel {
  models: DmmfModel[];
  enums: DmmfEnum[];
  indexes: DmmfIndex[];
}

const parsed = new Map<string, string>();

/** Parses a Prisma schema with Prisma's own parser and returns its datamodel (a fresh copy each call). */
export function loadDatamodel(prismaSchema: string): Datamodel {
  // get_dmmf takes a few hundred milliseconds (it builds the whole client schema too): parse each text once.
  let json = parsed.get(prismaSchema);
  if (json === undefined) {
    json = JSON.stringify((JSON.parse(get_dmmf(JSON.stringify({ prismaSchema }))) as { datamodel: Datamodel }).datamodel);
    parsed.set(prismaSchema, json);
  }
  return JSON.parse(json) as Datamodel;
}

// ---------------------------------------------------------------------------
// A database schema, normalised so the two sides compare as plain values
// ---------------------------------------------------------------------------

interface ColumnShape {
  /** `format_type()` spelling, or `enum:<type name>` (with `[]` for lists) for enum columns. */
  type: string;
  nullable: boolean;
  /** `pg_get_expr()` of the column default, or null. */
  default: string | null;
}

interface IndexShape {
  table: string;
  kind: 'primary' | 'unique' | 'normal';
  /** Column names in order, with " DESC" for descending keys. */
  columns: string[];
  method: string;
}

interface ForeignKeyShape {
  table: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

export interface DatabaseShape {
  tables: Map<string, Map<string, ColumnShape>>;
  enums: Map<string, string[]>;
  indexes: Map<string, IndexShape>;
  foreignKeys: Map<string, ForeignKeyShape>;
  /** Check and exclusion constraints: Prisma never creates them. */
  otherConstraints: Map<string, { table: string; definition: string }>;
}

/** Tables Prisma owns besides the models. */
const PRISMA_TABLES = new Set(['_prisma_migrations']);

/** Postgres' identifier limit: Prisma shortens default constraint names to fit it. */
const MAX_IDENTIFIER_LENGTH = 63;

// ---------------------------------------------------------------------------
// What schema.prisma implies
// ---------------------------------------------------------------------------

const scalarTypes: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

const precision = (args: string[]) => (args[0] ? `(${args[0]})` : '');

const nativeTypes: Record<string, (args: string[]) => string> = {
  Text: () => 'text',
  Uuid: () => 'uuid',
  VarChar: (args) => `character varying${precision(args)}`,
  Char: (args) => `character${precision(args)}`,
  SmallInt: () => 'smallint',
  Integer: () => 'integer',
  BigInt: () => 'bigint',
  Oid: () => 'oid',
  Real: () => 'real',
  DoublePrecision: () => 'double precision',
  Decimal: (args) => (args.length > 0 ? `numeric(${args.join(',')})` : 'numeric'),
  Money: () => 'money',
  Boolean: () => 'boolean',
  Timestamp: (args) => `timestamp${precision(args)} without time zone`,
  Timestamptz: (args) => `timestamp${precision(args)} with time zone`,
  Date: () => 'date',
  Time: (args) => `time${precision(args)} without time zone`,
  Timetz: (args) => `time${precision(args)} with time zone`,
  Json: () => 'json',
  JsonB: () => 'jsonb',
  ByteA: () => 'bytea',
  Inet: () => 'inet',
  Citext: () => 'citext',
  Xml: () => 'xml',
};

/** How Postgres prints an identifier: bare when it can be, else double-quoted. */
function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

const quoteLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** Prisma's default constraint name: `<table>_<columns>_<suffix>`, shortened to fit 63 characters. */
export function prismaConstraintName(table: string, columns: string[], suffix: 'pkey' | 'key' | 'idx' | 'fkey'): string {
  const base = suffix === 'pkey' ? table : `${table}_${columns.join('_')}`;
  return `${base.slice(0, MAX_IDENTIFIER_LENGTH - suffix.length - 1)}_${suffix}`;
}

/** Prisma's defaults when a relation does not say: Restrict if every FK column is required, else SetNull; updates cascade. */
function referentialActions(field: DmmfField, model: DmmfModel): { onDelete: string; onUpdate: string } {
  const fromFields = (field.relationFromFields ?? []).map((name) => model.fields.find((candidate) => candidate.name === name));
  const allRequired = fromFields.every((from) => from?.isRequired);
  return {
    onDelete: field.relationOnDelete ?? (allRequired ? 'Restrict' : 'SetNull'),
    onUpdate: field.relationOnUpdate ?? 'Cascade',
  };
}

/** The database shape schema.prisma implies, plus the parts this file cannot check yet. */
export function expectedDatabase(datamodel: Datamodel): { shape: DatabaseShape; unchecked: string[] } {
  const unchecked: string[] = [];
  const shape: DatabaseShape = { tables: new Map(), enums: new Map(), indexes: new Map(), foreignKeys: new Map(), otherConstraints: new Map() };
  const tableOf = (modelName: string) => {
    const model = datamodel.models.find((candidate) => candidate.name === modelName);
    if (!model) throw new Error(`unknown model ${modelName}`);
    return { model, table: model.dbName ?? model.name };
  };
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((candidate) => candidate.name === fieldName);
    if (!field) throw new Error(`unknown field ${model.name}.${fieldName}`);
    return field.dbName ?? field.name;
  };
  const enumNamed = (name: string) => datamodel.enums.find((candidate) => candidate.name === name);

  for (const enumeration of datamodel.enums) {
    shape.enums.set(
      enumeration.dbName ?? enumeration.name,
      enumeration.values.map((value) => value.dbName ?? value.name),
    );
  }

  for (const model of datamodel.models) {
    const table = model.dbName ?? model.name;
    if (model.schema && model.schema !== 'public') unchecked.push(`model ${model.name} lives in schema ${model.schema}`);
    const columns = new Map<string, ColumnShape>();
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      const column = field.dbName ?? field.name;
      const where = `${model.name}.${field.name}`;
      let type: string;
      let castType: string;
      if (field.kind === 'enum') {
        const enumeration = enumNamed(field.type);
        const enumType = enumeration?.dbName ?? field.type;
        type = `enum:${enumType}`;
        castType = quoteIdent(enumType);
      } else if (field.kind === 'scalar') {
        if (field.nativeType) {
          const [native, args] = field.nativeType;
          const render = nativeTypes[native];
          if (!render) {
            unchecked.push(`${where}: native type @db.${native}`);
            continue;
          }
          type = render(args);
        } else {
          const scalar = scalarTypes[field.type];
          if (!scalar) {
            unchecked.push(`${where}: scalar type ${field.type}`);
            continue;
          }
          type = scalar;
        }
        castType = type.replace(/\(.*?\)/, '');
      } else {
        unchecked.push(`${where}: Unsupported("${field.type}")`);
        continue;
      }
      if (field.isList) type = `${type}[]`;
      const defaultValue = expectedDefault(field, table, column, castType, field.kind === 'enum' ? enumNamed(field.type) : undefined);
      if (defaultValue.unchecked) unchecked.push(`${where}: default ${JSON.stringify(field.default)}`);
      // Prisma creates scalar lists without NOT NULL (a list cannot be optional in the schema).
      columns.set(column, { type, nullable: field.isList || !field.isRequired, default: defaultValue.sql });
    }
    shape.tables.set(table, columns);

    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationFromFields || field.relationFromFields.length === 0) continue;
      const target = tableOf(field.type);
      const fromColumns = field.relationFromFields.map((name) => columnOf(model, name));
      // A relation's `map:` is not in the DMMF; Herald's schema uses the default names.
      shape.foreignKeys.set(prismaConstraintName(table, fromColumns, 'fkey'), {
        table,
        columns: fromColumns,
        referencedTable: target.table,
        referencedColumns: (field.relationToFields ?? []).map((name) => columnOf(target.model, name)),
        ...referentialActions(field, model),
      });
    }
  }

  for (const index of datamodel.indexes) {
    const { model, table } = tableOf(index.model);
    if (index.type === 'fulltext') {
      unchecked.push(`${index.model}: fulltext index`);
      continue;
    }
    const columnNames = index.fields.map((field) => columnOf(model, field.name));
    for (const field of index.fields) {
      if (field.length !== undefined || field.operatorClass !== undefined) unchecked.push(`${index.model}: index option on ${field.name}`);
    }
    const kind = index.type === 'id' ? 'primary' : index.type;
    const suffix = kind === 'primary' ? 'pkey' : kind === 'unique' ? 'key' : 'idx';
    const name = index.dbName ?? prismaConstraintName(table, columnNames, suffix);
    shape.indexes.set(name, {
      table,
      kind,
      columns: index.fields.map((field, position) => `${columnNames[position]}${field.sortOrder === 'desc' ? ' DESC' : ''}`),
      method: (index.algorithm ?? 'BTree').toLowerCase(),
    });
  }
  return { shape, unchecked };
}

/** The SQL default Prisma's migrations give a field, as `pg_get_expr` prints it back. */
function expectedDefault(
  field: DmmfField,
  table: string,
  column: string,
  castType: string,
  enumeration: DmmfEnum | undefined,
): { sql: string | null; unchecked?: true } {
  const value = field.default;
  if (value === undefined || value === null) return { sql: null };
  if (field.isList) return { sql: null, unchecked: true };
  if (typeof value === 'object' && 'name' in (value as object)) {
    const { name, args } = value as { name: string; args: unknown[] };
    switch (name) {
      case 'now':
        return { sql: 'CURRENT_TIMESTAMP' };
      case 'autoincrement':
        return { sql: `nextval(${quoteLiteral(quoteIdent(`${table}_${column}_seq`))}::regclass)` };
      // Generated by the Prisma client, not the database.
      case 'uuid':
      case 'cuid':
      case 'nanoid':
      case 'ulid':
        return { sql: null };
      case 'dbgenerated':
        return typeof args[0] === 'string' ? { sql: args[0] } : { sql: null, unchecked: true };
      default:
        return { sql: null, unchecked: true };
    }
  }
  if (field.kind === 'enum' && typeof value === 'string') {
    const dbValue = enumeration?.values.find((candidate) => candidate.name === value)?.dbName ?? value;
    return { sql: `${quoteLiteral(dbValue)}::${castType}` };
  }
  if (typeof value === 'boolean') return { sql: String(value) };
  if (typeof value === 'number') return { sql: value < 0 ? `${quoteLiteral(String(value))}::${castType}` : String(value) };
  if (typeof value === 'string' && (field.type === 'String' || field.type === 'Json')) {
    return { sql: `${quoteLiteral(value)}::${castType}` };
  }
  return { sql: null, unchecked: true };
}

// ---------------------------------------------------------------------------
// What the database has
// ---------------------------------------------------------------------------

/** Anything with pg's `query` (a Client or a Pool). */
export interface Queryable {
  query<Row extends object>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

const referentialActionNames: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

/** Reads tables, columns, enums, indexes and constraints of one schema from pg_catalog. */
async function introspectDatabase(database: Queryable, schema = 'public'): Promise<DatabaseShape> {
  const shape: DatabaseShape = { tables: new Map(), enums: new Map(), indexes: new Map(), foreignKeys: new Map(), otherConstraints: new Map() };

  const tables = await database.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  for (const { table } of tables.rows) shape.tables.set(table, new Map());

  const columns = await database.query<{
    table: string;
    column: string;
    type: string;
    enum_type: string | null;
    not_null: boolean;
    default: string | null;
  }>(
    `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
            CASE WHEN t.typtype = 'e' THEN t.typname::text
                 WHEN et.typtype = 'e' THEN et.typname::text || '[]' END AS enum_type,
            a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
    [schema],
  );
  for (const row of columns.rows) {
    shape.tables.get(row.table)?.set(row.column, {
      type: row.enum_type ? `enum:${row.enum_type}` : row.type,
      nullable: !row.not_null,
      default: row.default,
    });
  }

  const enums = await database.query<{ name: string; values: string[] }>(
    `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = $1 GROUP BY t.typname`,
    [schema],
  );
  for (const row of enums.rows) shape.enums.set(row.name, row.values);

  const indexes = await database.query<{
    name: string;
    table: string;
    primary: boolean;
    unique: boolean;
    method: string;
    columns: string[];
    partial: boolean;
    included: number;
  }>(
    `SELECT i.relname AS name, t.relname AS table, x.indisprimary AS primary, x.indisunique AS unique,
            am.amname AS method, x.indpred IS NOT NULL AS partial, x.indnatts - x.indnkeyatts AS included,
            ARRAY(
              SELECT COALESCE(a.attname::text, pg_get_indexdef(x.indexrelid, k.position::int, true))
                     || CASE WHEN (x.indoption[(k.position - 1)::int] & 1) = 1 THEN ' DESC' ELSE '' END
                FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
                LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum AND k.attnum > 0
               WHERE k.position <= x.indnkeyatts
               ORDER BY k.position
            ) AS columns
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN pg_am am ON am.oid = i.relam
      WHERE n.nspname = $1 AND t.relkind IN ('r', 'p')`,
    [schema],
  );
  for (const row of indexes.rows) {
    const columnsWithExtras = [...row.columns];
    if (row.partial) columnsWithExtras.push('(partial)');
    if (row.included > 0) columnsWithExtras.push(`(+${row.included} included)`);
    shape.indexes.set(row.name, {
      table: row.table,
      kind: row.primary ? 'primary' : row.unique ? 'unique' : 'normal',
      columns: columnsWithExtras,
      method: row.method,
    });
  }

  const constraints = await database.query<{
    name: string;
    type: string;
    table: string;
    referenced_table: string | null;
    columns: string[];
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
    definition: string;
  }>(
    `SELECT con.conname AS name, con.contype AS type, t.relname AS table, rt.relname AS referenced_table,
            ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.position) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.position) AS referenced_columns,
            con.confdeltype AS on_delete, con.confupdtype AS on_update, pg_get_constraintdef(con.oid) AS definition
       FROM pg_constraint con
       JOIN pg_class t ON t.oid = con.conrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       LEFT JOIN pg_class rt ON rt.oid = con.confrelid
      WHERE n.nspname = $1 AND con.contype IN ('f', 'c', 'x', 't')`,
    [schema],
  );
  for (const row of constraints.rows) {
    if (row.type === 'f') {
      shape.foreignKeys.set(row.name, {
        table: row.table,
        columns: row.columns,
        referencedTable: row.referenced_table ?? '?',
        referencedColumns: row.referenced_columns,
        onDelete: referentialActionNames[row.on_delete] ?? row.on_delete,
        onUpdate: referentialActionNames[row.on_update] ?? row.on_update,
      });
    } else {
      shape.otherConstraints.set(row.name, { table: row.table, definition: row.definition });
    }
  }
  return shape;
}

// ---------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------

const describeIndex = (index: IndexShape) => `${index.kind} ${index.method} on "${index.table}"(${index.columns.join(', ')})`;
const describeForeignKey = (key: ForeignKeyShape) =>
  `"${key.table}"(${key.columns.join(', ')}) -> "${key.referencedTable}"(${key.referencedColumns.join(', ')}) ON DELETE ${key.onDelete} ON UPDATE ${key.onUpdate}`;

/** Every difference between what schema.prisma implies and what the database has, one line each. */
function compareDatabase(expected: DatabaseShape, actual: DatabaseShape): string[] {
  const drift: string[] = [];

  for (const [table, expectedColumns] of expected.tables) {
    const actualColumns = actual.tables.get(table);
    if (!actualColumns) {
      drift.push(`table "${table}" is missing`);
      continue;
    }
    for (const [column, want] of expectedColumns) {
      const have = actualColumns.get(column);
      const where = `"${table}"."${column}"`;
      if (!have) {
        drift.push(`${where}: column is missing`);
        continue;
      }
      if (have.type !== want.type) drift.push(`${where}: type is ${have.type}, schema.prisma says ${want.type}`);
      if (have.nullable !== want.nullable) {
        drift.push(`${where}: ${have.nullable ? 'nullable' : 'NOT NULL'} in the database, ${want.nullable ? 'optional' : 'required'} in schema.prisma`);
      }
      if (have.default !== want.default) drift.push(`${where}: default is ${have.default ?? 'none'}, schema.prisma says ${want.default ?? 'none'}`);
    }
    for (const column of actualColumns.keys()) {
      if (!expectedColumns.has(column)) drift.push(`"${table}"."${column}": column is not in schema.prisma`);
    }
  }
  for (const table of actual.tables.keys()) {
    if (!expected.tables.has(table) && !PRISMA_TABLES.has(table)) drift.push(`table "${table}" is not in schema.prisma`);
  }

  for (const [name, values] of expected.enums) {
    const have = actual.enums.get(name);
    if (!have) drift.push(`enum "${name}" is missing`);
    else if (have.join(',') !== values.join(',')) drift.push(`enum "${name}": values are [${have.join(', ')}], schema.prisma says [${values.join(', ')}]`);
  }
  for (const name of actual.enums.keys()) {
    if (!expected.enums.has(name)) drift.push(`enum "${name}" is not in schema.prisma`);
  }

  // Only indexes and keys of tables schema.prisma knows: an extra table is reported once, above.
  const known = (table: string) => expected.tables.has(table);
  for (const [name, want] of expected.indexes) {
    const have = actual.indexes.get(name);
    if (!have) drift.push(`index "${name}" (${describeIndex(want)}) is missing`);
    else if (describeIndex(have) !== describeIndex(want)) drift.push(`index "${name}": ${describeIndex(have)}, schema.prisma says ${describeIndex(want)}`);
  }
  for (const [name, have] of actual.indexes) {
    if (known(have.table) && !expected.indexes.has(name)) drift.push(`index "${name}" (${describeIndex(have)}) is not in schema.prisma`);
  }

  for (const [name, want] of expected.foreignKeys) {
    const have = actual.foreignKeys.get(name);
    if (!have) drift.push(`foreign key "${name}" (${describeForeignKey(want)}) is missing`);
    else if (describeForeignKey(have) !== describeForeignKey(want)) {
      drift.push(`foreign key "${name}": ${describeForeignKey(have)}, schema.prisma says ${describeForeignKey(want)}`);
    }
  }
  for (const [name, have] of actual.foreignKeys) {
    if (known(have.table) && !expected.foreignKeys.has(name)) drift.push(`foreign key "${name}" (${describeForeignKey(have)}) is not in schema.prisma`);
  }

  for (const [name, have] of actual.otherConstraints) {
    if (known(have.table)) drift.push(`constraint "${name}" on "${have.table}" (${have.definition}) is not in schema.prisma`);
  }
  return drift;
}

/** Parses `prismaSchema`, reads the database, and lists every difference (empty: no drift). */
export async function schemaDrift(database: Queryable, prismaSchema: string): Promise<string[]> {
  const { shape, unchecked } = expectedDatabase(loadDatamodel(prismaSchema));
  const actual = await introspectDatabase(database);
  return [...unchecked.map((what) => `unchecked (teach test/db/schema-drift.ts): ${what}`), ...compareDatabase(shape, actual)];
}
