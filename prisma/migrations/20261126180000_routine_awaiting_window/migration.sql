-- Issue 21 item 3: a WhatsApp routine run outside the 24-hour window, with no approved
-- template, waits for the user's next message instead of being skipped.

-- Held for the window: no model call yet; the user's next turn releases it (pending again).
ALTER TYPE "RoutineRunStatus" ADD VALUE 'awaiting_window';

-- When the run was held for the window (kept once released): the run then knows it goes out
-- late, at the user's next message, and says so.
ALTER TABLE "RoutineRun" ADD COLUMN "heldForWindowAt" TIMESTAMP(3);
