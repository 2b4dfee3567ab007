-- Every instance looks for lapsed turn leases every few seconds (crash recovery): index them.
CREATE INDEX "User_turnLeaseUntil_idx" ON "User"("turnLeaseUntil");
