-- Issue 21 item 8: a trip's return date ("I'm in Tokyo until Friday"). At "returnAt" a pg-boss
-- job (src/reminders/travel-return.ts) sets the user's zone back home, moves their repeating
-- reminders and routines back when they said YES for this trip, and sends one notice. One trip
-- per user; a changed trip is a new row, so a job for the old id finds nothing to do.
CREATE TYPE "TripStatus" AS ENUM ('away', 'returning');

CREATE TABLE "Trip" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "homeTimezone" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "returnOn" TEXT NOT NULL,
    "returnAt" TIMESTAMP(3) NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "movesReminders" BOOLEAN NOT NULL DEFAULT false,
    "status" "TripStatus" NOT NULL DEFAULT 'away',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Trip_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "Trip_userId_key" ON "Trip"("userId");

CREATE INDEX "Trip_dueAt_idx" ON "Trip"("dueAt");

ALTER TABLE "Trip" ADD CONSTRAINT "Trip_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
