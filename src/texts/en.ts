/**
 * Herald's own words in English: every text it sends without a model. This table defines
 * the keys; every other language's table has exactly these keys, with the same
 * `{placeholders}` (test/texts/texts.test.ts). Each table is written for its readers, not
 * translated word for word.
 */
export const en = {
  // When the model fails, or none is configured.
  apology: "Sorry, I couldn't get to that just now. Your message is saved; please try again in a minute.",
  timeout: 'Sorry, that took me too long and I had to stop. Please try again, maybe in smaller pieces.',
  noModel: "Herald isn't connected to its AI model yet (no ANTHROPIC_API_KEY is set), so I can't answer that. Your message is saved. Without it, HELP, MY DATA, DELETE MY DATA, STOP and START still work.",
  mediaOnly: "I can only read text for now, so I couldn't see what you sent. Could you describe it in words?",
  empty: "Your message reached me empty (or as something I can't read yet, like a location or a contact). What can I do for you?",
  progress: "On it — this is taking a little longer than usual. I'll text you as soon as it's done.",
  /** In front of a reply that could not be sent for a while (Twilio was unreachable): src/outbox/late-reply-note.ts. */
  replyLateNote: 'Sorry for the delay —',
  budget: 'Sorry, that needed more work than I can do for one message, so I stopped. Could you ask for it in smaller pieces?',
  done: 'Done.',
  cut: '(Your message was too long: I read only the first {kept} of its {total} characters. Please send the rest in smaller pieces.)',

  // STOP, START, HELP.
  keywordStop: "You're unsubscribed: Herald won't message you again, reminders included. Text START any time to come back.",
  keywordStart: 'Welcome back! Herald can message you again. What can I do for you?',
  keywordHelp: 'Herald is your assistant by text. Ask me anything, or say "remind me to call mom at 5", "add milk to my shopping list", "remember that I\'m vegetarian". Text STOP to unsubscribe.',

  // Confirmations.
  confirmAsk: 'Reply YES or NO.',
  confirmCancelled: "OK, I won't do that.",
  confirmExpired: "That request waited more than {minutes} minutes, so I didn't do it. Ask again if you still want it.",
  confirmAlreadyDone: 'That is already done.',
  confirmUnsure: "I started that earlier but can't tell whether it finished. Please check, and ask again if needed.",
  actionFailed: "I couldn't do that: {error}",

  // The time zone, when the number did not settle it (src/timezones).
  zoneAsk: 'Before I set that, which time is it where you are?\n{options}\nReply with the number, or tell me your city.',
  zoneSet: 'Got it: {zone} time (it is {time} there now).',
  zoneGuessed: '(Times are {zone} time, guessed from your number. Tell me your city if you are elsewhere.)',

  // Which one?
  choiceAsk: 'Which one?\n{options}\nReply with its number, or NO to leave it.',
  choiceAskAgain: 'Please reply with a number from 1 to {count}, or NO to leave it.',
  choiceDidYouMean: 'Did you mean {option}? Reply YES or NO.',
  choiceDropped: "OK, I'll leave it.",
  choiceDone: 'Done: {label}.',
  choiceGone: '{label} is no longer there (it was changed or deleted elsewhere), so I did nothing.',

  // Reminders.
  reminder: '⏰ Reminder: {text}',
  reminderLate: '⏰ Reminder (late: due at {due}): {text}',
  reminderMissed: 'I missed a reminder while I was offline, sorry: "{text}" (it was due {due}).',
  reminderUndelivered: "While you were away I couldn't send these reminders (WhatsApp only lets me message you within 24 hours of your last message):\n{items}",
  reminderUndeliveredOne: "While you were away I couldn't send this reminder (WhatsApp only lets me message you within 24 hours of your last message):\n{items}",
  snoozed: "OK, I'll remind you again at {time}: {text}",
  snoozeOutOfRange: 'I can snooze a reminder for 1 minute up to 7 days: try "snooze 10" or "snooze 1 hour". Nothing was changed.',
  reminderDone: '✓ Done: {text}',
  reminderDoneNext: '✓ Done: {text}. Next one: {next}.',

  // Bulk changes.
  bulkDeleteEvents: 'Delete {count} events ({range}){except}?\n{items}',
  bulkMoveEvents: 'Move {count} events ({range}){except} by {shift}?\n{items}',
  bulkCancelReminders: 'Cancel {count} reminders?\n{items}',
  bulkRemoveItems: 'Remove {count} items from the {list} list?\n{items}',
  bulkCheckItems: 'Tick off {count} items on the {list} list?\n{items}',
  bulkExcept: ', keeping {names}',
  bulkDeletedEvents: 'Deleted {count} events.',
  bulkMovedEvents: 'Moved {count} events.',
  bulkCancelledReminders: 'Cancelled {count} reminders.',
  bulkRemovedItems: 'Removed {count} items.',
  bulkCheckedItems: 'Ticked off {count} items.',
  bulkTooMany: 'That would change {count} items; I change at most {max} at once. Nothing was changed: narrow it down (a shorter period, or more specific words).',
  bulkMore: '…and {count} more: {link}',
  // Notes, contacts and mail (their confirmations: src/agents/memory, contacts, email).
  noteDeleteAsk: "Delete the note \"{title}\"?",
  noteDeleted: "Deleted the note \"{title}\".",
  contactDeleteAsk: "Delete {name} from your contacts?",
  contactDeleted: "Deleted {name} from your contacts.",
  mailArchiveOne: "Archive this email?\n{lines}",
  mailArchiveMany: "Archive these {count} emails?\n{lines}",
  mailMoveOne: "Move this email to \"{folder}\"?\n{lines}",
  mailMoveMany: "Move these {count} emails to \"{folder}\"?\n{lines}",
  mailDeleteOne: "Delete this email?\n{lines}",
  mailDeleteMany: "Delete these {count} emails?\n{lines}",
  mailArchivedOne: "Archived 1 email.",
  mailArchivedMany: "Archived {count} emails.",
  mailMovedOne: "Moved 1 email to \"{folder}\".",
  mailMovedMany: "Moved {count} emails to \"{folder}\".",
  mailDeletedOne: "Deleted 1 email.",
  mailDeletedMany: "Deleted {count} emails.",
  mailListMore: "…and {count} more",
  mailSendAsk: "Send this email to {recipients}?{cc}\nSubject: {subject}\n\"{preview}\"",
  mailCc: "\nCc: {list}",
  mailSent: "Sent your email to {recipients} (\"{subject}\").",

  // Daily budgets.
  budgetUser: "You've reached today's limit for Herald's answers. I'll be back at midnight; reminders still arrive, and STOP and HELP still work.",
  budgetDeployment: "Herald has reached its limit for today and can't answer until midnight. Reminders still arrive.",
  budgetOwners: "Herald's daily budget ({budget}) is spent: nobody gets model answers until midnight ({zone}). Raise DAILY_BUDGET_USD to change it.",

  // Routines.
  routineBudget: "You've reached today's limit for Herald's answers, so your routines (\"{name}\" first) won't run until midnight.",
  routinesPage: 'Your routines (pause, resume or delete each): {link}',
  routinesNone: 'You have no routines yet. Try "every weekday at 7 send me my day".',

  // MY DATA, DELETE MY DATA.
  myData: 'Here is everything Herald holds about you: {link}\nTo erase it all, text DELETE MY DATA.',
  myDataFailed: 'Sorry, I could not put your data on a page just now. Please try again in a minute.',
  confirmErase: 'This erases everything Herald holds about you: messages, memory, reminders, lists, calendar, connected accounts and pages. It cannot be undone.',
  confirmEraseAsk: 'Reply YES within {minutes} minutes to erase it.',
  erased: 'Done: everything Herald held about you is erased. If you text again, you start afresh.',

  // Access: strangers, and owners' commands.
  strangerPrivate: 'This is a private assistant. If you have an invite code, reply JOIN <code>.',
  strangerJoinFailed: "Sorry, that invite code didn't work. Ask the person who invited you for a new one.",
  strangerJoined: "Welcome to Herald! You're in. Text me anything: reminders, lists, your calendar, questions.",
  strangerAlreadyIn: "You're already in: text me anything.",
  strangerBusy: 'Herald is not taking new people right now. Please try again in an hour.',
  ownerInvited: '{phone} can use Herald now.',
  ownerInvitedWelcomed: '{phone} can use Herald now. I sent them your welcome.',
  ownerAlreadyInvited: '{phone} could already use Herald.',
  ownerAlways: '{phone} is an owner and can always use Herald.',
  ownerCode: 'Invite code: {code} (works once, until {expires}). They text JOIN {code} to this number.',
  ownerRevoked: '{phone} can no longer use Herald, and their routines are stopped. Their other data stays until they delete it (or you run npm run accounts).',
  ownerNotAllowed: '{phone} was not on the invite list.',
  ownerCannotRevoke: '{phone} is an owner (OWNER_PHONES); remove them there.',
  ownerBadPhone: 'That is not a phone number in international form, such as +15551234567.',
  ownerOpenMode: 'Herald is in open mode: anyone may use it. Users, most recently active first:',
  ownerInviteMode: '{count} numbers may use Herald, most recently active first:',
  ownerInviteModeOne: '1 number may use Herald:',
  ownerNever: 'never',
  ownerJustNow: 'just now',
  ownerMore: '…and {count} more (npm run accounts -- users).',
  ownerRoutines: '{count} routines',
  welcomeSuffix: 'Text anything to start. Reply STOP to opt out.',
  defaultWelcome: "You've been invited to Herald, an assistant you can text.",

  // A long answer sent as a lead and a page.
  longReplyWhole: "The whole answer: {link}",
  longReplyOnly: "Your answer is too long for a text; here it is: {link}",
  longReplyTitle: "Your answer",

  // Attachments, voice notes and location pins (src/media). {What} is {what} capitalised.
  mediaPhoto: "your photo",
  mediaPdf: "the PDF",
  mediaVoice: "your voice note",
  mediaAttachment: "your attachment",
  mediaNumbered: "attachment {n}",
  mediaContactCard: "your contact card",
  cardSaved: "Saved to your contacts from {what}: {count} ({created} new, {updated} updated, {merged} merged, {refused} refused).",
  cardNone: "I found no contacts I could read in {what}.",
  cardOverLimit: "{count} more were not saved: you have reached the limit of {max} contacts.",
  cardUnreadLines: "Lines I couldn't read, skipped ({count}): {lines}.",
  cardMerged: "Cards sharing one UID were merged into one, the last one winning: {count}.",
  cardRefused: "Cut or left out as too long or too many ({count}): lines {lines}.",
  cardRefusedCount: "Cut or left out as too long or too many: {count}.",
  cardTooSlow: "I couldn't read {what} in time, so I saved nothing from it.",
  mediaTooLarge: "I couldn't take {what}: it's over my {limit} limit.",
  mediaPhotoFile: "I can't open {what} ({type}). Please send it as a photo, not a file.",
  mediaUnsupported: "I can't open {what} ({type}). I can read photos (JPEG, PNG, WebP, GIF), PDFs and voice notes.",
  mediaDownloadFailed: "I couldn't download {what}. Please send it again.",
  mediaCorrupt: "{What} seems to be damaged, so I couldn't open it.",
  mediaPdfPages: "The PDF has {pages} pages; I read up to {max}. Could you send just the pages that matter?",
  mediaPdfLocked: "The PDF is password-protected, so I can't read it.",
  mediaTooMuch: "That's a lot at once, so I skipped {what}. Please send it in another message.",
  voiceEmpty: "{What} reached me empty.",
  voiceTooLong: "{What} is {minutes} min long; I listen to up to {max} min. Could you send a shorter one, or type it?",
  voiceUnreadable: "I couldn't play {what}. Could you type it instead?",
  voiceOff: "I can't listen to voice notes here yet (whoever runs this Herald can turn it on by setting TRANSCRIPTION_BASE_URL). Could you type it instead?",
  voiceFailed: "Sorry, I couldn't listen to your voice note just now. It's saved; please try again in a minute, or type it.",
  voiceNothingHeard: "I couldn't make out any words in your voice note. Could you try again, or type it?",
  voiceHeard: "I heard: \"{text}\".",
  zoneQuestion: "This pin is in the {zone} time zone (it is {time} there). Make {zone} your time zone?",
  zoneSame: "This pin is in {zone}, which is already your time zone.",
  zoneUnknown: "I couldn't tell the time zone of this pin (it may be at sea).",
  zoneDone: "Your time zone is now {zone}.",
  memoryIntro: "Here's what I know about you:",
  memoryLearned: "(picked up from our chats)",
  memoryOutro: "Say \"forget ...\" and I'll drop anything you like.",
  memoryEmpty: "I don't know anything about you yet.",
  memoryForgot: "Done, I've forgotten: {facts}.",
  memoryWontKeep: "OK, I won't remember that.",
  quietSet: "Got it: no messages from me between {start} and {end} unless it's a reminder you set.",
  quietOff: "OK: no quiet hours, I may message you at any time.",
  dateOfferBirthday: "Want a reminder the day before {who}'s birthday ({date})?",
  dateOfferAnniversary: "Want a reminder the day before your anniversary ({date})?",
  dateReminderBirthday: "{who}'s birthday is tomorrow.",
  dateReminderAnniversary: "Your anniversary is tomorrow.",
  travelQuestion: "You're on {zone} time now. Should your repeating reminders and routines move with you (9:00 stays 9:00 where you are)? YES to move them, NO to keep them on {home} time.",
  travelMoved: "Done: your repeating reminders and routines now follow {zone} time.",
  travelReturned: "Welcome back: I'm on {home} time again.",
  travelReturnedMoved: "Welcome back: I'm on {home} time again, and your repeating reminders and routines are back on it.",
  dateOfferDone: "Done: I'll remind you every year on {date}.",

  // One-tap answers (WhatsApp and RCS buttons; src/outbox/one-tap.ts): button titles (20 characters at most) and what a tap on a closed question is told.
  buttonYes: "Yes",
  buttonNo: "No",
  buttonChoose: "Choose",
  tapClosed: "That question is no longer open, so I did nothing.",
  tapExpired: "That question waited more than {minutes} minutes, so I did nothing. Ask again if you still want it.",
} as const;

/** The name of one of Herald's fixed texts. */
export type TextKey = keyof typeof en;

/** A language's table: every key, worded for its readers. */
export type TextTable = Record<TextKey, string>;
