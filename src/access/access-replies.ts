import { readerLanguage, say } from '../texts/texts.js';

/**
 * What Herald says about access, without a model. Strangers get the language their message
 * is written in when it can be told (nothing else is known about them), else English;
 * users and owners get their own language.
 */
export function strangerRepliesFor(messageText = '') {
  const lang = readerLanguage(null, messageText);
  return {
    /** Invite mode, an unknown sender: at most once a day. */
    private: say(lang, 'strangerPrivate'),
    /** A used, expired or wrong code: the same words for each, so nothing hints which. */
    joinFailed: say(lang, 'strangerJoinFailed'),
    /** A code that worked. */
    joined: say(lang, 'strangerJoined'),
    /** JOIN from a number that may already use Herald: the code is not spent. */
    alreadyIn: say(lang, 'strangerAlreadyIn'),
    /** Open mode, past NEW_USERS_PER_HOUR. */
    busy: say(lang, 'strangerBusy'),
  };
}

/** The stranger replies in English (what a sender whose language cannot be told gets). */
export const strangerReplies = strangerRepliesFor();

/** Owner-facing wording in the owner's language. */
export function ownerReplies(language: string | null) {
  const lang = readerLanguage(language);
  return {
    invited: (phone: string, welcomed: boolean) => say(lang, welcomed ? 'ownerInvitedWelcomed' : 'ownerInvited', { phone }),
    alreadyInvited: (phone: string) => say(lang, 'ownerAlreadyInvited', { phone }),
    ownerAlways: (phone: string) => say(lang, 'ownerAlways', { phone }),
    code: (code: string, expires: string) => say(lang, 'ownerCode', { code, expires }),
    revoked: (phone: string) => say(lang, 'ownerRevoked', { phone }),
    notAllowed: (phone: string) => say(lang, 'ownerNotAllowed', { phone }),
    cannotRevokeOwner: (phone: string) => say(lang, 'ownerCannotRevoke', { phone }),
    badPhone: say(lang, 'ownerBadPhone'),
    openMode: say(lang, 'ownerOpenMode'),
    inviteMode: (count: number) => (count === 1 ? say(lang, 'ownerInviteModeOne') : say(lang, 'ownerInviteMode', { count })),
    never: say(lang, 'ownerNever'),
    justNow: say(lang, 'ownerJustNow'),
    more: (count: number) => say(lang, 'ownerMore', { count }),
    routines: (count: number) => say(lang, 'ownerRoutines', { count }),
    welcomeSuffix: say(lang, 'welcomeSuffix'),
    defaultWelcome: say(lang, 'defaultWelcome'),
  };
}
