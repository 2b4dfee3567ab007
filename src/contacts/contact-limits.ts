import { MAX_EMAIL_LENGTH } from '../shared/text-ends.js';

/**
 * How long and how many, for everything a contact holds (issue 32). A contact's fields come from
 * text others control: an attachment, an address book, Google, the model. Every value is held to
 * these before it is matched or stored; past them it is cut (a name, a note: still useful) or
 * refused (an address, a phone, a nickname: a cut one would be wrong), and the import's report
 * says so. Nothing is ever stored whole past its cap.
 */
export const CONTACT_LIMITS = {
  /** A display name, in characters: cut. */
  name: 200,
  /** One nickname: refused. */
  nickname: 100,
  /** One phone number as written: refused (E.164 is at most 16; 64 leaves room for extensions and punctuation). */
  phone: 64,
  /** One email address (RFC 5321): refused. */
  email: MAX_EMAIL_LENGTH,
  /** The relationship ("sister"): cut. */
  relationship: 80,
  /** Notes: cut. */
  notes: 2_000,
  /** A vCard UID: a longer one is replaced by its hash (it is an identity, not shown). */
  uid: 200,
  /** Nicknames, phones and emails a contact keeps, each: the rest refused. */
  valuesPerField: 10,
  /** Properties one vCard may have (a real card has a few dozen; PHOTO and others included): more, the card is refused. */
  propertiesPerCard: 500,
  /** Cards one import reads (a file or an address book); the rest are refused. CONTACTS_MAX_PER_USER still applies. */
  cardsPerImport: 20_000,
} as const;
