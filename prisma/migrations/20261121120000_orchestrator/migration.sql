-- CreateEnum
CREATE TYPE "PlanRunStatus" AS ENUM ('planning', 'executing', 'completed', 'failed', 'timed_out', 'needs_clarification', 'answered_directly');

-- CreateEnum
CREATE TYPE "StepRunStatus" AS ENUM ('running', 'completed', 'failed', 'skipped');

-- AlterTable
ALTER TABLE "Fact" ADD COLUMN     "subject" TEXT;

-- CreateTable
CREATE TABLE "PlanRun" (
    "id" TEXT NOT NULL,
    "turnId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "status" "PlanRunStatus" NOT NULL DEFAULT 'planning',
    "version" INTEGER NOT NULL DEFAULT 1,
    "goal" TEXT,
    "analysis" TEXT,
    "responseHint" TEXT,
    "steps" JSONB,
    "replans" INTEGER NOT NULL DEFAULT 0,
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheReadTokens" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "PlanRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StepRun" (
    "id" TEXT NOT NULL,
    "planRunId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "planVersion" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" "StepRunStatus" NOT NULL DEFAULT 'running',
    "output" JSONB,
    "error" TEXT,
    "errorKind" TEXT,
    "toolCalls" JSONB,
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "durationMs" INTEGER,

    CONSTRAINT "StepRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PlanRun_turnId_idx" ON "PlanRun"("turnId");

-- CreateIndex
CREATE INDEX "PlanRun_userId_startedAt_idx" ON "PlanRun"("userId", "startedAt");

-- CreateIndex
CREATE INDEX "StepRun_planRunId_idx" ON "StepRun"("planRunId");

-- CreateIndex
CREATE UNIQUE INDEX "Fact_userId_subject_key" ON "Fact"("userId", "subject");

-- AddForeignKey
ALTER TABLE "PlanRun" ADD CONSTRAINT "PlanRun_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlanRun" ADD CONSTRAINT "PlanRun_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StepRun" ADD CONSTRAINT "StepRun_planRunId_fkey" FOREIGN KEY ("planRunId") REFERENCES "PlanRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
