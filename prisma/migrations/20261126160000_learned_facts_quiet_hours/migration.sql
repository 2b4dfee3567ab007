-- Facts Herald learned in the background (src/learning) from the user's own words: marked, and
-- tied to the message they came from, so erasing that message erases them too.
ALTER TABLE "Fact" ADD COLUMN "learned" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Fact" ADD COLUMN "sourceMessageId" UUID;
CREATE INDEX "Fact_sourceMessageId_idx" ON "Fact"("sourceMessageId");
ALTER TABLE "Fact" ADD CONSTRAINT "Fact_sourceMessageId_fkey" FOREIGN KEY ("sourceMessageId") REFERENCES "Message"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Learning's progress per user: the newest message a pass has read, and when the last pass
-- called the model (at most one call per FACT_LEARNING_DELAY_MS window).
ALTER TABLE "User" ADD COLUMN "factsLearnedThrough" TIMESTAMP(3);
ALTER TABLE "User" ADD COLUMN "factsLearnedAt" TIMESTAMP(3);
-- The user's own quiet hours ("22:00-07:00", or "off"); null: QUIET_HOURS.
ALTER TABLE "User" ADD COLUMN "quietHours" TEXT;
-- The zone the user's wall-clock reminders were last asked about (travel, src/learning).
ALTER TABLE "User" ADD COLUMN "homeTimezone" TEXT;
-- Important dates Herald has offered a reminder for ("birthday:dana"): each is asked once, ever.
ALTER TABLE "User" ADD COLUMN "offeredDates" TEXT[];
