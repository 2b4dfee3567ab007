import { randomBytes } from 'node:crypto';
import addressparser from 'nodemailer/lib/addressparser';
import { decodeBytes, decodeMimeWords } from '../../src/email/mime-words.js';
import { headerOf, leaves, parseMime, type MimeNode } from './mime-tree.js';

/** Scopes that let a token read mail, and those that let it send, as Google grants them. */
const READ_SCOPES = ['https://www.googleapis.com/auth/gmail.readonly', 'https://www.googleapis.com/auth/gmail.modify', 'https://mail.google.com/'];
const SEND_SCOPES = ['https://www.googleapis.com/auth/gmail.send', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify', 'https://mail.google.com/'];
/** Scopes that let a token change labels and trash messages (gmail.readonly does not). */
const MODIFY_SCOPES = ['https://www.googleapis.com/auth/gmail.modify', 'https://mail.google.com/'];
/** System labels a modify may add or remove (TRASH and SPAM move only by trash/untrash; SENT and DRAFT never). */
const MODIFIABLE_SYSTEM_LABELS = new Set(['INBOX', 'UNREAD', 'STARRED', 'IMPORTANT', 'CATEGORY_PERSONAL', 'CATEGORY_SOCIAL', 'CATEGORY_PROMOTIONS', 'CATEGORY_UPDATES', 'CATEGORY_FORUMS']);
/** Every system label the labels endpoint lists. */
const SYSTEM_LABELS = ['INBOX', 'SENT', 'DRAFT', 'TRASH', 'SPAM', 'UNREAD', 'STARRED', 'IMPORTANT', 'CATEGORY_PERSONAL', 'CATEGORY_SOCIAL', 'CATEGORY_PROMOTIONS', 'CATEGORY_UPDATES', 'CATEGORY_FORUMS'];

/** One stored message. */
export interface StoredMail {
  id: string;
  threadId: string;
  labelIds: Set<string>;
  internalDate: number;
  raw: Buffer;
  tree: MimeNode;
}

/** A mail "sent through Gmail": who it went to and the exact bytes. */
export interface SentRecord {
  from: string;
  recipients: string[];
  raw: Buffer;
}

/** What the fake answers: a status and a JSON body. */
export interface FakeResponse {
  status: number;
  body: unknown;
}

type Query = (mail: StoredMail) => boolean;

/**
 * Gmail v1's message endpoints as the official client calls them, behind the fake Google's
 * OAuth: list with Gmail's search operators (the ones Herald uses; any other is a 400 so a
 * query Herald builds cannot silently mean nothing), get in full, metadata, minimal and raw
 * formats (attachments as ids, their bytes only from the attachments endpoint), send of a raw
 * RFC 822 message (parsed; bad recipient headers refused like Gmail does; filed under SENT
 * and delivered to any recipient with a mailbox here), and the profile. Scopes are checked:
 * reading needs a read scope, sending a send scope, else 403 insufficient scopes.
 */
export class FakeGmail {
  private readonly mailboxes = new Map<string, Map<string, StoredMail>>();
  /** Every message sent, in order. */
  readonly sentRecords: SentRecord[] = [];
  /** Attachment downloads asked for (Herald must never ask). */
  readonly attachmentRequests: string[] = [];
  /** Addresses Gmail refuses as recipients ("Invalid To header"), besides malformed ones. */
  readonly refusedRecipients = new Set<string>();
  private counter = 0;
  /** Each mailbox's user labels, by id (Label_1…) to name. */
  private readonly userLabels = new Map<string, Map<string, string>>();
  /** Every label change asked for (modify, batchModify, trash), in order, as Gmail received it. */
  readonly modifyRequests: Array<{ email: string; endpoint: 'modify' | 'batchModify' | 'trash'; ids: string[]; addLabelIds: string[]; removeLabelIds: string[] }> = [];

  /** Puts a raw message in `email`'s inbox (unread unless said otherwise); its id. */
  deliver(email: string, raw: string | Buffer, options: { unread?: boolean; date?: Date; labels?: string[] } = {}): string {
    const tree = parseMime(raw);
    const date = options.date ?? new Date(Date.parse(headerOf(tree, 'date') ?? '') || Date.now());
    return this.store(email, { raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8'), tree, internalDate: date.getTime(), labels: options.labels ?? ['INBOX', ...(options.unread === false ? [] : ['UNREAD'])] });
  }

  /** The messages in `email`'s mailbox carrying `label` (INBOX, SENT…), oldest first. */
  messages(email: string, label?: string): StoredMail[] {
    return [...this.mailbox(email).values()].filter((mail) => !label || mail.labelIds.has(label)).sort((left, right) => left.internalDate - right.internalDate);
  }

  /** Makes a user label in `email`'s mailbox (as the user would in Gmail); its id. */
  createLabel(email: string, name: string): string {
    const labels = this.labelsOf(email);
    const id = `Label_${labels.size + 1}`;
    labels.set(id, name);
    return id;
  }

  /** The label ids of one stored message. */
  labelsOfMessage(email: string, id: string): string[] {
    return [...(this.mailbox(email).get(id)?.labelIds ?? [])].sort();
  }

  private labelsOf(email: string): Map<string, string> {
    let labels = this.userLabels.get(email.toLowerCase());
    if (!labels) this.userLabels.set(email.toLowerCase(), (labels = new Map()));
    return labels;
  }

  /**
   * `labels.list`, `messages.modify`, `messages.batchModify` and `messages.trash`, as strict
   * as Gmail: modify needs gmail.modify (or full access); a body must be JSON with `ids` (1 to
   * 1,000, batchModify) and label id arrays; an unknown label id, or TRASH/SPAM/SENT/DRAFT in
   * a modify, is a 400; an unknown message id is a 404 (modify, trash) or 400 (batchModify).
   */
  private labelsAndModify(method: string, email: string, resource: string, id: string | undefined, action: string | undefined, body: string, scopes: string[]): FakeResponse | undefined {
    if (resource === 'labels') {
      if (method !== 'GET' || id) return error(405, 'Method not allowed', 'INVALID_ARGUMENT');
      const user = [...this.labelsOf(email)].map(([labelId, name]) => ({ id: labelId, name, type: 'user', messageListVisibility: 'show', labelListVisibility: 'labelShow' }));
      return { status: 200, body: { labels: [...SYSTEM_LABELS.map((name) => ({ id: name, name, type: 'system' })), ...user] } };
    }
    const modifying = method === 'POST' && (id === 'batchModify' || action === 'modify' || action === 'trash');
    if (!modifying) return undefined;
    if (!MODIFY_SCOPES.some((allowed) => scopes.includes(allowed))) return insufficient();
    if (action === 'trash') {
      const mail = this.mailbox(email).get(decodeURIComponent(id!));
      if (!mail) return error(404, 'Requested entity was not found.', 'NOT_FOUND');
      this.modifyRequests.push({ email, endpoint: 'trash', ids: [mail.id], addLabelIds: ['TRASH'], removeLabelIds: [] });
      mail.labelIds.delete('INBOX');
      mail.labelIds.add('TRASH');
      return { status: 200, body: this.view(mail, 'minimal', []) };
    }
    let input: { ids?: unknown; addLabelIds?: unknown; removeLabelIds?: unknown };
    try {
      input = JSON.parse(body || 'null') as typeof input;
    } catch {
      return error(400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    }
    if (!input || typeof input !== 'object') return error(400, 'Invalid JSON payload received.', 'INVALID_ARGUMENT');
    const known = new Set(Object.keys(input));
    const allowedKeys = id === 'batchModify' ? ['ids', 'addLabelIds', 'removeLabelIds'] : ['addLabelIds', 'removeLabelIds'];
    const stray = [...known].find((key) => !allowedKeys.includes(key));
    if (stray) return error(400, `Invalid JSON payload received. Unknown name "${stray}": Cannot find field.`, 'INVALID_ARGUMENT');
    const strings = (value: unknown) => (value === undefined ? [] : Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? (value as string[]) : undefined);
    const add = strings(input.addLabelIds);
    const remove = strings(input.removeLabelIds);
    if (!add || !remove) return error(400, 'Invalid value at label ids (TYPE_STRING)', 'INVALID_ARGUMENT');
    if (add.length === 0 && remove.length === 0) return error(400, 'No label add or removes specified', 'INVALID_ARGUMENT');
    for (const label of [...add, ...remove]) {
      if (!MODIFIABLE_SYSTEM_LABELS.has(label) && !this.labelsOf(email).has(label)) return error(400, `Invalid label: ${label}`, 'INVALID_ARGUMENT');
    }
    let ids: string[];
    if (id === 'batchModify') {
      const given = strings(input.ids);
      if (!given || given.length === 0) return error(400, 'No message ids specified', 'INVALID_ARGUMENT');
      if (given.length > 1000) return error(400, 'Too many ids: at most 1000', 'INVALID_ARGUMENT');
      if (given.some((messageId) => !this.mailbox(email).has(messageId))) return error(400, 'Invalid id value', 'INVALID_ARGUMENT');
      ids = given;
    } else {
      if (!this.mailbox(email).has(decodeURIComponent(id!))) return error(404, 'Requested entity was not found.', 'NOT_FOUND');
      ids = [decodeURIComponent(id!)];
    }
    this.modifyRequests.push({ email, endpoint: id === 'batchModify' ? 'batchModify' : 'modify', ids, addLabelIds: add, removeLabelIds: remove });
    for (const messageId of ids) {
      const mail = this.mailbox(email).get(messageId)!;
      for (const label of remove) mail.labelIds.delete(label);
      for (const label of add) mail.labelIds.add(label);
    }
    // batchModify answers 204 with no body; modify answers the message.
    return id === 'batchModify' ? { status: 204, body: undefined } : { status: 200, body: this.view(this.mailbox(email).get(ids[0]!)!, 'minimal', []) };
  }

  /** Handles `/gmail/v1/...` for a request authorised as `email` with `scope`. */
  handle(method: string, url: URL, body: string, email: string, scope: string): FakeResponse {
    const match = /^\/gmail\/v1\/users\/([^/]+)\/(profile|messages|labels)(?:\/([^/]+))?(?:\/attachments\/([^/]+)|\/(modify|trash))?$/.exec(url.pathname);
    if (!match) return error(404, 'Not Found', 'NOT_FOUND');
    if (match[1] !== 'me' && decodeURIComponent(match[1]!) !== email) return error(403, 'Delegation denied for ' + email, 'PERMISSION_DENIED');
    const scopes = scope.split(/\s+/);
    const filing = this.labelsAndModify(method, email, match[2]!, match[3], match[5], body, scopes);
    if (filing) return filing;
    const sending = method === 'POST' && match[3] === 'send';
    if (!(sending ? SEND_SCOPES : READ_SCOPES).some((allowed) => scopes.includes(allowed))) return insufficient();
    if (match[2] === 'profile') return { status: 200, body: { emailAddress: email, messagesTotal: this.mailbox(email).size, threadsTotal: this.mailbox(email).size, historyId: String(this.counter) } };
    if (sending) return this.send(email, body);
    if (method !== 'GET') return error(405, 'Method not allowed', 'INVALID_ARGUMENT');
    if (!match[3]) return this.list(email, url.searchParams);
    const mail = this.mailbox(email).get(decodeURIComponent(match[3]));
    if (!mail) return error(/^[0-9a-f]+$/.test(match[3]) ? 404 : 400, /^[0-9a-f]+$/.test(match[3]) ? 'Requested entity was not found.' : 'Invalid id value', /^[0-9a-f]+$/.test(match[3]) ? 'NOT_FOUND' : 'INVALID_ARGUMENT');
    if (match[4]) return this.attachment(mail, decodeURIComponent(match[4]));
    return { status: 200, body: this.view(mail, url.searchParams.get('format') ?? 'full', url.searchParams.getAll('metadataHeaders')) };
  }

  private mailbox(email: string): Map<string, StoredMail> {
    let mailbox = this.mailboxes.get(email.toLowerCase());
    if (!mailbox) this.mailboxes.set(email.toLowerCase(), (mailbox = new Map()));
    return mailbox;
  }

  private store(email: string, input: { raw: Buffer; tree: MimeNode; internalDate: number; labels: string[]; threadId?: string }): string {
    const id = `${(this.counter += 1).toString(16).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
    this.mailbox(email).set(id, { id, threadId: input.threadId ?? id, labelIds: new Set(input.labels), internalDate: input.internalDate, raw: input.raw, tree: input.tree });
    return id;
  }

  private list(email: string, params: URLSearchParams): FakeResponse {
    let query: Query;
    try {
      query = parseQuery(params.get('q') ?? '');
    } catch (problem) {
      return error(400, `Invalid query: ${(problem as Error).message}`, 'INVALID_ARGUMENT');
    }
    const includeSpamTrash = params.get('includeSpamTrash') === 'true';
    const maxResults = Math.min(Number(params.get('maxResults') ?? 100), 500);
    if (!Number.isInteger(maxResults) || maxResults < 1) return error(400, 'Invalid maxResults', 'INVALID_ARGUMENT');
    const matches = [...this.mailbox(email).values()]
      .filter((mail) => includeSpamTrash || !(mail.labelIds.has('SPAM') || mail.labelIds.has('TRASH')))
      .filter(query)
      .sort((left, right) => right.internalDate - left.internalDate);
    const offset = Number(params.get('pageToken') ?? 0);
    const page = matches.slice(offset, offset + maxResults);
    return {
      status: 200,
      body: {
        ...(page.length > 0 ? { messages: page.map((mail) => ({ id: mail.id, threadId: mail.threadId })) } : {}),
        ...(offset + maxResults < matches.length ? { nextPageToken: String(offset + maxResults) } : {}),
        resultSizeEstimate: matches.length,
      },
    };
  }

  private view(mail: StoredMail, format: string, metadataHeaders: string[]): unknown {
    const base = { id: mail.id, threadId: mail.threadId, labelIds: [...mail.labelIds], snippet: snippet(mail.tree), sizeEstimate: mail.raw.length, historyId: String(this.counter), internalDate: String(mail.internalDate) };
    if (format === 'minimal') return base;
    if (format === 'raw') return { ...base, raw: mail.raw.toString('base64url') };
    if (format === 'metadata') {
      const wanted = metadataHeaders.map((name) => name.toLowerCase());
      const headers = decodedHeaders(mail.tree).filter((header) => wanted.length === 0 || wanted.includes(header.name.toLowerCase()));
      return { ...base, payload: { partId: '', mimeType: mail.tree.contentType, filename: '', headers, body: { size: 0 } } };
    }
    if (format !== 'full') throw new Error(`unknown format ${format}`);
    return { ...base, payload: part(mail, mail.tree, '') };
  }

  private attachment(mail: StoredMail, attachmentId: string): FakeResponse {
    this.attachmentRequests.push(`${mail.id}/${attachmentId}`);
    const found = leaves(mail.tree).find((_leaf, index) => attachmentIdOf(mail, index) === attachmentId);
    return found ? { status: 200, body: { size: found.body.length, data: found.body.toString('base64url') } } : error(400, 'Invalid attachment token', 'INVALID_ARGUMENT');
  }

  private send(email: string, body: string): FakeResponse {
    const input = JSON.parse(body || '{}') as { raw?: string; threadId?: string };
    if (!input.raw) return error(400, "'raw' RFC822 payload message string or uploading message via /upload/* URL required", 'INVALID_ARGUMENT');
    const raw = Buffer.from(input.raw, 'base64url');
    const tree = parseMime(raw);
    const recipients: string[] = [];
    for (const name of ['To', 'Cc', 'Bcc']) {
      const value = headerOf(tree, name);
      if (value === undefined) continue;
      const parsed = addressparser(value, { flatten: true });
      if (parsed.some((entry) => !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(entry.address) || this.refusedRecipients.has(entry.address.toLowerCase()))) return error(400, `Invalid ${name} header`, 'INVALID_ARGUMENT');
      recipients.push(...parsed.map((entry) => entry.address));
    }
    if (recipients.length === 0) return error(400, 'Recipient address required', 'INVALID_ARGUMENT');
    if (input.threadId && ![...this.mailbox(email).values()].some((mail) => mail.threadId === input.threadId)) return error(404, 'Requested entity was not found.', 'NOT_FOUND');
    const id = this.store(email, { raw, tree, internalDate: Date.now(), labels: ['SENT'], ...(input.threadId ? { threadId: input.threadId } : {}) });
    this.sentRecords.push({ from: email, recipients, raw });
    for (const recipient of recipients) {
      if (this.mailboxes.has(recipient.toLowerCase()) && recipient.toLowerCase() !== email.toLowerCase()) this.deliver(recipient, raw);
    }
    const stored = this.mailbox(email).get(id)!;
    return { status: 200, body: { id, threadId: stored.threadId, labelIds: ['SENT'] } };
  }
}

/** Google's 403 for a token without the scope a call needs. */
function insufficient(): FakeResponse {
  return { status: 403, body: { error: { code: 403, message: 'Request had insufficient authentication scopes.', errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }], status: 'PERMISSION_DENIED' } } };
}

/** Gmail's payload for a MIME node: headers decoded, text bodies inline, attachments by id. */
function part(mail: StoredMail, node: MimeNode, partId: string): unknown {
  const leafIndex = leaves(mail.tree).indexOf(node);
  const isAttachment = node.children.length === 0 && (node.filename !== undefined || node.disposition === 'attachment' || !node.contentType.startsWith('text/'));
  return {
    partId,
    mimeType: node.contentType,
    filename: node.filename ? decodeMimeWords(node.filename) : '',
    headers: node.headers.map((header) => ({ name: header.name, value: decodeMimeWords(header.value) })),
    body:
      node.children.length > 0
        ? { size: 0 }
        : isAttachment
          ? { attachmentId: attachmentIdOf(mail, leafIndex), size: node.body.length }
          : { size: node.body.length, data: node.body.toString('base64url') },
    ...(node.children.length > 0 ? { parts: node.children.map((child, index) => part(mail, child, partId === '' ? String(index) : `${partId}.${index}`)) } : {}),
  };
}

function attachmentIdOf(mail: StoredMail, leafIndex: number): string {
  return `ANGjdJ-${mail.id}-${leafIndex}`;
}

function decodedHeaders(tree: MimeNode): Array<{ name: string; value: string }> {
  return tree.headers.map((header) => ({ name: header.name, value: decodeMimeWords(header.value) }));
}

/** The readable text of a message (plain part, else HTML without tags), for snippets and free-text search. */
function textOf(tree: MimeNode): string {
  const texts = leaves(tree).filter((leaf) => leaf.contentType.startsWith('text/') && leaf.filename === undefined && leaf.disposition !== 'attachment');
  const chosen = texts.find((leaf) => leaf.contentType === 'text/plain') ?? texts[0];
  if (!chosen) return '';
  const text = decodeBytes(chosen.body, chosen.parameters.charset);
  return chosen.contentType === 'text/html' ? text.replace(/<(style|script|head)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ') : text;
}

/** Gmail's snippet: the start of the text, HTML-escaped. */
function snippet(tree: MimeNode): string {
  const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  return textOf(tree).replace(/\s+/g, ' ').trim().slice(0, 200).replace(/[&<>"']/g, (char) => escapes[char]!);
}

/**
 * The search operators Herald uses, as Gmail reads them: `from:`, `to:`, `subject:`,
 * `after:`/`before:` (epoch seconds or yyyy/mm/dd), `is:unread|read`, `in:<label>`,
 * `rfc822msgid:`, quoted or bare free text, and `-` to negate. Matching is case-insensitive.
 */
function parseQuery(q: string): Query {
  const tests: Query[] = [];
  const pattern = /(-?)(?:([a-z0-9]+):)?("([^"]*)"|[^\s"]+)/gi;
  let found: RegExpExecArray | null;
  while ((found = pattern.exec(q))) {
    const negate = found[1] === '-';
    const operator = found[2]?.toLowerCase();
    const value = (found[4] ?? found[3]!).toLowerCase();
    const test = termTest(operator, value);
    tests.push(negate ? (mail) => !test(mail) : test);
  }
  return (mail) => tests.every((test) => test(mail));
}

function termTest(operator: string | undefined, value: string): Query {
  const header = (mail: StoredMail, name: string) => decodeMimeWords(headerOf(mail.tree, name) ?? '').toLowerCase();
  switch (operator) {
    case undefined:
      return (mail) => [header(mail, 'subject'), header(mail, 'from'), header(mail, 'to'), textOf(mail.tree).toLowerCase()].some((text) => text.includes(value));
    case 'from':
      return (mail) => header(mail, 'from').includes(value);
    case 'to':
      return (mail) => ['to', 'cc', 'bcc'].some((name) => header(mail, name).includes(value));
    case 'subject':
      return (mail) => header(mail, 'subject').includes(value);
    case 'after':
    case 'before': {
      const at = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value.replace(/\//g, '-'));
      if (!Number.isFinite(at)) throw new Error(`bad date ${value}`);
      return operator === 'after' ? (mail) => mail.internalDate >= at : (mail) => mail.internalDate < at;
    }
    case 'is':
      if (value === 'unread') return (mail) => mail.labelIds.has('UNREAD');
      if (value === 'read') return (mail) => !mail.labelIds.has('UNREAD');
      throw new Error(`unsupported is:${value}`);
    case 'in':
      return (mail) => value === 'anywhere' || mail.labelIds.has(value.toUpperCase());
    case 'rfc822msgid':
      return (mail) => (headerOf(mail.tree, 'message-id') ?? '').trim().toLowerCase().replace(/^<|>$/g, '') === value.replace(/^<|>$/g, '');
    default:
      throw new Error(`operator ${operator}: is not supported by this fake`);
  }
}

function error(status: number, message: string, statusName: string): FakeResponse {
  return { status, body: { error: { code: status, message, errors: [{ message, domain: 'global', reason: statusName === 'NOT_FOUND' ? 'notFound' : 'invalidArgument' }], status: statusName } } };
}
