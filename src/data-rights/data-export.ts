import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../db/prisma-types.js';
import { formatVcard } from '../contacts/vcard.js';
import type { Clock } from '../shared/clock.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** The files MY DATA offers to download. */
const EXPORT_FILES = {
  'notes.json': 'application/json; charset=utf-8',
  'contacts.json': 'application/json; charset=utf-8',
  'contacts.vcf': 'text/vcard; charset=utf-8',
} as const;
type ExportFile = keyof typeof EXPORT_FILES;

/** A download, or why there is none (the same answer for a wrong, expired or erased link). */
export type ExportResponse = { status: 200; contentType: string; filename: string; body: string } | { status: 404 };


/**
 * MY DATA's downloads: the user's notes as JSON and their contacts as JSON and vCard, at
 * `/p/<token>/<file>`. The token is signed (HMAC under a key derived from
 * HERALD_ENCRYPTION_KEY) and names the user and an expiry, so it needs no row and cannot be
 * made up; it works for PAGE_TTL_HOURS, and never again once the user's data is erased.
 */
export class DataExport {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly key: Buffer,
    private readonly clock: Clock,
    private readonly options: { ttlHours: number; publicBaseUrl: string },
  ) {}

  /** The download links for `userId`, valid for the page lifetime. */
  links(userId: string): Array<{ label: string; url: string }> {
    // The user id's 16 bytes and the expiry in Unix seconds: short enough for one path segment.
    const bytes = Buffer.alloc(20);
    Buffer.from(userId.replaceAll('-', ''), 'hex').copy(bytes);
    bytes.writeUInt32BE(Math.floor(this.clock.now().getTime() / 1000) + this.options.ttlHours * 3600, 16);
    const payload = bytes.toString('base64url');
    const token = `${payload}.${this.sign(payload)}`;
    const base = `${withoutTrailingSlashes(this.options.publicBaseUrl)}/p/${token}`;
    return [
      { label: 'Your notes (JSON)', url: `${base}/notes.json` },
      { label: 'Your contacts (vCard, for any address book)', url: `${base}/contacts.vcf` },
      { label: 'Your contacts (JSON)', url: `${base}/contacts.json` },
    ];
  }

  /** The file a link names, for the user the token names while it is valid. */
  async download(token: string, file: string): Promise<ExportResponse> {
    if (!(file in EXPORT_FILES)) return { status: 404 };
    const userId = this.verify(token);
    if (!userId) return { status: 404 };
    const user = await this.prisma.user.findUnique({ where: { id: userId }, select: { id: true } });
    if (!user) return { status: 404 };
    const contentType = EXPORT_FILES[file as ExportFile];
    if (file === 'notes.json') {
      const notes = await this.prisma.note.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: { id: true, title: true, body: true, tags: true, language: true, createdAt: true, updatedAt: true } });
      return { status: 200, contentType, filename: 'herald-notes.json', body: JSON.stringify({ notes }, null, 2) };
    }
    const contacts = await this.prisma.contact.findMany({
      where: { userId },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, nicknames: true, relationship: true, phones: true, emails: true, birthday: true, notes: true, source: true, sourceUid: true },
    });
    if (file === 'contacts.json') return { status: 200, contentType, filename: 'herald-contacts.json', body: JSON.stringify({ contacts }, null, 2) };
    const body = contacts
      .map((contact) => formatVcard({ ...contact, uid: contact.sourceUid ?? undefined, birthday: contact.birthday ?? undefined, notes: contact.notes ?? undefined, relationship: contact.relationship ?? undefined }))
      .join('');
    return { status: 200, contentType, filename: 'herald-contacts.vcf', body };
  }

  private sign(payload: string): string {
    // 128 bits of the HMAC: as unguessable as a page token.
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, 16).toString('base64url');
  }

  private verify(token: string): string | undefined {
    const [payload, signature, ...rest] = token.split('.');
    if (!payload || !signature || rest.length > 0) return undefined;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const bytes = Buffer.from(payload, 'base64url');
    if (bytes.length !== 20 || bytes.readUInt32BE(16) * 1000 < this.clock.now().getTime()) return undefined;
    const hex = bytes.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
