-- CreateEnum
CREATE TYPE "Channel" AS ENUM ('sms', 'whatsapp');

-- CreateEnum
CREATE TYPE "MessageRole" AS ENUM ('user', 'assistant');

-- CreateEnum
CREATE TYPE "InboundStatus" AS ENUM ('pending', 'handled', 'ignored');

-- CreateEnum
CREATE TYPE "TurnStatus" AS ENUM ('running', 'succeeded', 'failed');

-- CreateEnum
CREATE TYPE "OutboundStatus" AS ENUM ('pending', 'dispatching', 'accepted', 'scheduled', 'queued', 'sending', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'undeliverable');

-- CreateEnum
CREATE TYPE "OutboundKind" AS ENUM ('reply', 'progress', 'system', 'reminder');

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "phone" TEXT NOT NULL,
    "name" TEXT,
    "timezone" TEXT NOT NULL,
    "language" TEXT,
    "optedOut" BOOLEAN NOT NULL DEFAULT false,
    "optedOutAt" TIMESTAMP(3),
    "smsUnreachableAt" TIMESTAMP(3),
    "whatsappUnreachableAt" TIMESTAMP(3),
    "lastWhatsappInboundAt" TIMESTAMP(3),
    "preferredChannel" "Channel" NOT NULL DEFAULT 'sms',
    "turnLeaseOwner" TEXT,
    "turnLeaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Fact" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "category" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Fact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "role" "MessageRole" NOT NULL,
    "content" TEXT NOT NULL,
    "channel" "Channel" NOT NULL,
    "twilioSid" TEXT,
    "tokenCount" INTEGER NOT NULL,
    "numMedia" INTEGER NOT NULL DEFAULT 0,
    "heraldAddress" TEXT,
    "optOutType" TEXT,
    "inboundStatus" "InboundStatus",
    "turnId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboundDedupe" (
    "key" TEXT NOT NULL,
    "messageId" UUID,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InboundDedupe_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "status" "TurnStatus" NOT NULL DEFAULT 'running',
    "errorKind" TEXT,
    "errorMessage" TEXT,
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboundMessage" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "turnId" UUID,
    "kind" "OutboundKind" NOT NULL,
    "channel" "Channel" NOT NULL,
    "toAddress" TEXT NOT NULL,
    "fromAddress" TEXT,
    "body" TEXT NOT NULL,
    "groupId" UUID NOT NULL,
    "partIndex" INTEGER NOT NULL,
    "partCount" INTEGER NOT NULL,
    "contentSid" TEXT,
    "contentVariables" JSONB,
    "status" "OutboundStatus" NOT NULL DEFAULT 'pending',
    "statusRank" INTEGER NOT NULL DEFAULT 0,
    "twilioSid" TEXT,
    "errorCode" INTEGER,
    "errorMessage" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "OutboundMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_phone_key" ON "User"("phone");

-- CreateIndex
CREATE INDEX "Fact_userId_category_idx" ON "Fact"("userId", "category");

-- CreateIndex
CREATE UNIQUE INDEX "Message_twilioSid_key" ON "Message"("twilioSid");

-- CreateIndex
CREATE INDEX "Message_userId_createdAt_idx" ON "Message"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "Message_inboundStatus_userId_idx" ON "Message"("inboundStatus", "userId");

-- CreateIndex
CREATE INDEX "Turn_userId_startedAt_idx" ON "Turn"("userId", "startedAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboundMessage_twilioSid_key" ON "OutboundMessage"("twilioSid");

-- CreateIndex
CREATE INDEX "OutboundMessage_userId_status_idx" ON "OutboundMessage"("userId", "status");

-- CreateIndex
CREATE INDEX "OutboundMessage_status_nextAttemptAt_idx" ON "OutboundMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboundMessage_groupId_partIndex_key" ON "OutboundMessage"("groupId", "partIndex");

-- AddForeignKey
ALTER TABLE "Fact" ADD CONSTRAINT "Fact_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OutboundMessage" ADD CONSTRAINT "OutboundMessage_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OutboundMessage" ADD CONSTRAINT "OutboundMessage_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE;
