-- Attachments (photos, PDFs, voice notes) and location pins of inbound messages (src/media).
-- Only metadata is stored: type, size and a SHA-256 once downloaded, never the bytes.
CREATE TYPE "MediaStatus" AS ENUM ('pending', 'ready', 'refused', 'failed');

CREATE TABLE "MessageMedia" (
    "id" UUID NOT NULL,
    "messageId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "declaredType" TEXT NOT NULL,
    "status" "MediaStatus" NOT NULL DEFAULT 'pending',
    "contentType" TEXT,
    "sizeBytes" INTEGER,
    "sha256" TEXT,
    "durationSeconds" INTEGER,
    "problem" TEXT,
    "deletedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "MessageMedia_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "MessageMedia_messageId_position_key" ON "MessageMedia"("messageId", "position");

ALTER TABLE "MessageMedia" ADD CONSTRAINT "MessageMedia_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A voice note's transcript becomes the message's text, marked as such; a pin stays on its message.
ALTER TABLE "Message" ADD COLUMN "transcribed" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Message" ADD COLUMN "location" JSONB;

-- What a turn spent beyond tokens: web searches and transcribed seconds (both in costUsd too).
ALTER TABLE "Turn" ADD COLUMN "webSearches" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Turn" ADD COLUMN "transcriptionSeconds" INTEGER NOT NULL DEFAULT 0;
