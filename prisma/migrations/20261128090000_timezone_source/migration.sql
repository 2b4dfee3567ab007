-- Issue 30 item 3: where a user's time zone came from. "number": their number's zone keeps one
-- clock (Google libphonenumber's mapping, src/channels/phone-zones.ts); "guess": it maps to
-- several clocks or none, so Herald asks once, at the first message that needs a time
-- ("timezoneAskedAt"); "user": they said so (a pick, a pin, "I'm in Denver", the profile page).
-- Users from before this change keep their zone as settled.
CREATE TYPE "TimezoneSource" AS ENUM ('number', 'guess', 'user');

ALTER TABLE "User" ADD COLUMN "timezoneSource" "TimezoneSource" NOT NULL DEFAULT 'user';
ALTER TABLE "User" ADD COLUMN "timezoneAskedAt" TIMESTAMP(3);
