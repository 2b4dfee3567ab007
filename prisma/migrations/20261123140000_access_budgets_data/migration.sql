-- AlterTable
ALTER TABLE "User" ADD COLUMN "budgetNoticeOn" TEXT;

-- CreateTable
CREATE TABLE "AccessGrant" (
    "phone" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "grantedBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "AccessGrant_pkey" PRIMARY KEY ("phone")
);

-- CreateTable
CREATE TABLE "InviteCode" (
    "id" UUID NOT NULL,
    "codeHash" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "InviteCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StrangerNotice" (
    "phoneHash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "lastNoticeAt" TIMESTAMP(3) NOT NULL,
    "failedJoins" INTEGER NOT NULL DEFAULT 0,
    "failedSince" TIMESTAMP(3),

    CONSTRAINT "StrangerNotice_pkey" PRIMARY KEY ("phoneHash")
);

-- CreateTable
CREATE TABLE "SystemNotice" (
    "key" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SystemNotice_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "InviteCode_codeHash_key" ON "InviteCode"("codeHash");

-- CreateIndex
CREATE INDEX "Turn_startedAt_idx" ON "Turn"("startedAt");
