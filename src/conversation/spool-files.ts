import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { inboundMessageSchema, type InboundMessageWebhook } from '../channels/twilio-webhook-schemas.js';

/** What the normal path needs to store a webhook later, and nothing else of the request. */
export interface SpooledDelivery {
  webhook: InboundMessageWebhook;
  idempotencyToken?: string | undefined;
  /** When the webhook arrived: the message is stored as received then. */
  receivedAt: Date;
}

/** One spool file, read back. */
export type SpoolEntry =
  | { kind: 'delivery'; name: string; bytes: number; delivery: SpooledDelivery }
  /** Not a spool record (truncated, edited, another format): to be moved aside, never retried. */
  | { kind: 'corrupt'; name: string; bytes: number; reason: string }
  /** Removed meanwhile (another process sharing the directory replayed it). */
  | { kind: 'gone'; name: string };

/** The spool's bounds: past either, a webhook is refused (INBOUND_SPOOL_MAX_FILES, INBOUND_SPOOL_MAX_BYTES). */
export interface SpoolLimits {
  maxFiles: number;
  maxBytes: number;
}

const FORMAT = 'herald-inbound-spool/1';
/** Where unreadable files go, inside the spool directory (same file system: a rename). */
const QUARANTINE_FOLDER = 'quarantine';
/** A temp file this old was left by a process killed mid-write, which never answered 200 for it. */
const ABANDONED_TEMP_MS = 60_000;

const recordSchema = z.object({
  format: z.literal(FORMAT),
  receivedAt: z.iso.datetime(),
  idempotencyToken: z.string().min(1).max(200).optional(),
  webhook: z.record(z.string(), z.unknown()),
});

/** The form fields the normal path reads: the schema's own, and each attachment's URL and type. */
const WEBHOOK_FIELDS = new Set(Object.keys(inboundMessageSchema.out.shape));
const MEDIA_FIELD = /^Media(?:Url|ContentType)\d{1,2}$/;

/**
 * The spool's files: one per message, named `<receive time in ms, 15 digits>-<MessageSid>-<random>.json`
 * so that name order is receive-time order. Each is written to a temp name, fsync'd, renamed
 * into place and the directory fsync'd: once {@link write} returns, the message survives a
 * crash of the process or the machine. Files are readable by this user only.
 *
 * Counts are kept in memory (set from the directory at {@link open}, the count again at
 * every {@link list}), so a write never scans the directory.
 */
export class SpoolFiles {
  private files = 0;
  private bytes = 0;
  private opening: Promise<void> | undefined;
  private creating: Promise<void> | undefined;
  /** The spool directory, absolute. */
  readonly directory: string;

  constructor(
    directory: string,
    private readonly limits: SpoolLimits,
    private readonly now: () => number,
  ) {
    this.directory = path.resolve(directory);
  }

  /** Messages and bytes waiting, as this process counts them. */
  get size(): { files: number; bytes: number } {
    return { files: this.files, bytes: this.bytes };
  }

  /**
   * Counts what the directory holds (nothing when it does not exist yet: it is made at the
   * first write), and deletes temp files abandoned by a process killed mid-write (it never
   * answered 200 for them). Idempotent.
   */
  open(): Promise<void> {
    this.opening ??= this.scan().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  /** Throws unless this process can write the directory, or make it (checked at start-up, so a wrong INBOUND_SPOOL_DIR is told before an outage). */
  async checkWritable(): Promise<void> {
    let folder = this.directory;
    while (!(await stat(folder).then(() => true, () => false)) && path.dirname(folder) !== folder) folder = path.dirname(folder);
    await access(folder, constants.W_OK | constants.X_OK);
  }

  /** Writes one delivery durably; `full` (nothing written) when it would pass a bound. */
  async write(delivery: SpooledDelivery): Promise<{ kind: 'written'; name: string; bytes: number } | { kind: 'full'; files: number; bytes: number }> {
    await this.open();
    await this.create();
    const data = Buffer.from(`${JSON.stringify(toRecord(delivery))}\n`);
    if (this.files + 1 > this.limits.maxFiles || this.bytes + data.length > this.limits.maxBytes) return { kind: 'full', files: this.files, bytes: this.bytes };
    // Reserved before the first await, so concurrent writes cannot pass the bounds together.
    this.files += 1;
    this.bytes += data.length;
    const name = `${String(delivery.receivedAt.getTime()).padStart(15, '0')}-${delivery.webhook.MessageSid}-${randomBytes(4).toString('hex')}.json`;
    const temp = path.join(this.directory, `.${name}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path.join(this.directory, name));
      await syncDirectory(this.directory);
      return { kind: 'written', name, bytes: data.length };
    } catch (error) {
      this.files -= 1;
      this.bytes -= data.length;
      await rm(temp, { force: true }).catch(() => {});
      throw error;
    }
  }

  /** The waiting files' names, oldest receive time first. */
  async list(): Promise<string[]> {
    await this.open();
    const entries = await readdir(this.directory, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const names = entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
    this.files = names.length;
    if (names.length === 0) this.bytes = 0;
    return names;
  }

  /** Reads and checks one file. */
  async read(name: string): Promise<SpoolEntry> {
    let text: string;
    try {
      text = await readFile(path.join(this.directory, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone', name };
      throw error;
    }
    const bytes = Buffer.byteLength(text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'corrupt', name, bytes, reason: 'not JSON' };
    }
    const record = recordSchema.safeParse(json);
    if (!record.success) return { kind: 'corrupt', name, bytes, reason: `not a spool record (${fieldsOf(record.error)})` };
    const webhook = inboundMessageSchema.safeParse(record.data.webhook);
    if (!webhook.success) return { kind: 'corrupt', name, bytes, reason: `not a webhook (${fieldsOf(webhook.error)})` };
    return { kind: 'delivery', name, bytes, delivery: { webhook: webhook.data, idempotencyToken: record.data.idempotencyToken, receivedAt: new Date(record.data.receivedAt) } };
  }

  /** Deletes a file whose message the database now holds. */
  async remove(name: string, bytes: number): Promise<void> {
    try {
      await rm(path.join(this.directory, name));
      this.forget(bytes);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /** Moves a file aside, to `quarantine/` in the spool directory; returns where it went. */
  async quarantine(name: string, bytes: number): Promise<string> {
    const folder = path.join(this.directory, QUARANTINE_FOLDER);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const target = path.join(folder, name);
    await rename(path.join(this.directory, name), target);
    this.forget(bytes);
    return target;
  }

  private forget(bytes: number): void {
    this.files = Math.max(0, this.files - 1);
    this.bytes = Math.max(0, this.bytes - bytes);
  }

  /** Makes the directory (mode 700) at the first write. */
  private create(): Promise<void> {
    this.creating ??= (async () => {
      const created = await mkdir(this.directory, { recursive: true, mode: 0o700 });
      // New directories' entries must survive a crash too, or the first files would go with them.
      if (!created) return;
      for (let folder = this.directory; ; folder = path.dirname(folder)) {
        await syncDirectory(path.dirname(folder));
        if (folder === path.resolve(created) || path.dirname(folder) === folder) break;
      }
    })().catch((error: unknown) => {
      this.creating = undefined;
      throw error;
    });
    return this.creating;
  }

  private async scan(): Promise<void> {
    let files = 0;
    let bytes = 0;
    const entries = await readdir(this.directory, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = path.join(this.directory, entry.name);
      const info = await stat(file).catch(() => undefined);
      if (!info) continue;
      if (entry.name.startsWith('.')) {
        if (entry.name.endsWith('.tmp') && this.now() - info.mtimeMs > ABANDONED_TEMP_MS) await rm(file, { force: true });
        continue;
      }
      files += 1;
      bytes += info.size;
    }
    this.files = files;
    this.bytes = bytes;
  }
}

/** The record written for a delivery: the webhook's fields Herald reads, the idempotency token, the receive time. */
function toRecord(delivery: SpooledDelivery): z.input<typeof recordSchema> {
  const webhook = Object.fromEntries(Object.entries(delivery.webhook).filter(([key, value]) => value !== undefined && (WEBHOOK_FIELDS.has(key) || MEDIA_FIELD.test(key))));
  return {
    format: FORMAT,
    receivedAt: delivery.receivedAt.toISOString(),
    ...(delivery.idempotencyToken ? { idempotencyToken: delivery.idempotencyToken } : {}),
    webhook,
  };
}

/** The paths zod objected to, never the values (they are someone's message). */
function fieldsOf(error: z.ZodError): string {
  return error.issues.map((issue) => issue.path.join('.') || '(record)').join(', ');
}

/** fsync on a directory: makes the renames and creations in it durable. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
