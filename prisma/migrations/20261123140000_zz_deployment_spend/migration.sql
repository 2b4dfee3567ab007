-- The deployment budget reads a running daily total instead of summing today's turns.
DROP INDEX "Turn_startedAt_idx";

-- CreateTable
CREATE TABLE "DeploymentSpend" (
    "day" TEXT NOT NULL,
    "costUsd" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DeploymentSpend_pkey" PRIMARY KEY ("day")
);
