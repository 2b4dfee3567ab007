-- Mutating tool calls keyed by request, tool, arguments and repeat (src/tool-calls): a re-run
-- of the same request (a retried or replanned step, a turn taken over after a crash) finds a
-- call it already made and does not make it twice. Rows are kept a day.
CREATE TABLE "ToolCallKey" (
    "key" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "result" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "ToolCallKey_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "ToolCallKey_userId_createdAt_idx" ON "ToolCallKey"("userId", "createdAt");

ALTER TABLE "ToolCallKey" ADD CONSTRAINT "ToolCallKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
