-- CreateEnum
CREATE TYPE "ConfirmationStatus" AS ENUM ('pending', 'executing', 'done', 'cancelled', 'expired');

-- CreateTable
CREATE TABLE "PendingConfirmation" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "turnId" UUID,
    "actions" JSONB NOT NULL,
    "question" TEXT NOT NULL,
    "status" "ConfirmationStatus" NOT NULL DEFAULT 'pending',
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),
    "outcome" JSONB,

    CONSTRAINT "PendingConfirmation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PendingConfirmation_userId_createdAt_idx" ON "PendingConfirmation"("userId", "createdAt");

-- AddForeignKey
ALTER TABLE "PendingConfirmation" ADD CONSTRAINT "PendingConfirmation_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
