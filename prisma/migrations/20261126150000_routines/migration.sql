-- Routines (src/routines): an instruction in the user's words that Herald runs as a turn of
-- its own on a schedule. A run is claimed once per (routine, due time): the unique pair is
-- what makes each occurrence run exactly once across retries and instances.
ALTER TYPE "MessageKind" ADD VALUE 'routine';

CREATE TYPE "RoutineStatus" AS ENUM ('active', 'paused');

CREATE TYPE "RoutineRunStatus" AS ENUM ('pending', 'sent', 'nothing', 'failed', 'skipped_late', 'skipped_budget', 'undeliverable', 'opted_out');

CREATE TABLE "Routine" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "instruction" TEXT NOT NULL,
    "condition" TEXT,
    "timezone" TEXT NOT NULL,
    "startLocal" TEXT NOT NULL,
    "rrule" TEXT NOT NULL,
    "nextDueAt" TIMESTAMP(3),
    "status" "RoutineStatus" NOT NULL DEFAULT 'active',
    "runsSent" INTEGER NOT NULL DEFAULT 0,
    "lastRunAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Routine_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "RoutineRun" (
    "id" UUID NOT NULL,
    "routineId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "status" "RoutineRunStatus" NOT NULL,
    "turnId" UUID,
    "outboundGroupId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RoutineRun_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "Routine_userId_status_idx" ON "Routine"("userId", "status");

CREATE INDEX "RoutineRun_userId_status_idx" ON "RoutineRun"("userId", "status");

CREATE UNIQUE INDEX "RoutineRun_routineId_dueAt_key" ON "RoutineRun"("routineId", "dueAt");

ALTER TABLE "Routine" ADD CONSTRAINT "Routine_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "RoutineRun" ADD CONSTRAINT "RoutineRun_routineId_fkey" FOREIGN KEY ("routineId") REFERENCES "Routine"("id") ON DELETE CASCADE ON UPDATE CASCADE;
