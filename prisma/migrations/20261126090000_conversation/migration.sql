-- Issue 19: a conversation, not single texts.

-- Everything Herald sends is a message of the conversation, with its kind and, for a
-- reminder, the occurrence it was for; its outbox group leads a quoted WhatsApp reply back to it.
CREATE TYPE "MessageKind" AS ENUM ('chat', 'reminder', 'reminder_missed', 'reminder_notice', 'progress', 'notice');

ALTER TABLE "Message"
  ADD COLUMN "kind" "MessageKind" NOT NULL DEFAULT 'chat',
  ADD COLUMN "reminderId" UUID,
  ADD COLUMN "reminderDueAt" TIMESTAMP(3),
  ADD COLUMN "outboundGroupId" UUID,
  ADD COLUMN "quotedSid" TEXT;

CREATE INDEX "Message_outboundGroupId_idx" ON "Message"("outboundGroupId");
CREATE INDEX "Message_userId_kind_createdAt_idx" ON "Message"("userId", "kind", "createdAt");
ALTER TABLE "Message" ADD CONSTRAINT "Message_reminderId_fkey" FOREIGN KEY ("reminderId") REFERENCES "Reminder"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A snooze is a one-off reminder re-delivering an occurrence of another; "done" acknowledges an occurrence.
ALTER TABLE "Reminder" ADD COLUMN "snoozedFromId" UUID;
ALTER TABLE "ReminderDelivery" ADD COLUMN "acknowledgedAt" TIMESTAMP(3);

-- Pending confirmations become pending questions: confirmations, choices and clarifications
-- share one lifetime, one atomic claim and a short id a button payload can carry.
ALTER TYPE "ConfirmationStatus" RENAME TO "PendingQuestionStatus";
CREATE TYPE "PendingQuestionKind" AS ENUM ('confirmation', 'choice', 'clarification');

ALTER TABLE "PendingConfirmation" RENAME TO "PendingQuestion";
ALTER TABLE "PendingQuestion" RENAME CONSTRAINT "PendingConfirmation_pkey" TO "PendingQuestion_pkey";
ALTER TABLE "PendingQuestion" RENAME CONSTRAINT "PendingConfirmation_userId_fkey" TO "PendingQuestion_userId_fkey";
ALTER INDEX "PendingConfirmation_userId_createdAt_idx" RENAME TO "PendingQuestion_userId_createdAt_idx";

ALTER TABLE "PendingQuestion" RENAME COLUMN "actions" TO "payload";
UPDATE "PendingQuestion" SET "payload" = jsonb_build_object('actions', "payload");
ALTER TABLE "PendingQuestion"
  ADD COLUMN "shortId" TEXT,
  ADD COLUMN "kind" "PendingQuestionKind" NOT NULL DEFAULT 'confirmation',
  ADD COLUMN "channel" "Channel" NOT NULL DEFAULT 'sms',
  ADD COLUMN "claimedBy" UUID,
  ADD COLUMN "answer" JSONB;
UPDATE "PendingQuestion" SET "shortId" = substr(md5("id"::text), 1, 10);
ALTER TABLE "PendingQuestion" ALTER COLUMN "shortId" SET NOT NULL;
ALTER TABLE "PendingQuestion" ALTER COLUMN "kind" DROP DEFAULT;
ALTER TABLE "PendingQuestion" ALTER COLUMN "channel" DROP DEFAULT;
CREATE UNIQUE INDEX "PendingQuestion_shortId_key" ON "PendingQuestion"("shortId");
