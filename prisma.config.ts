import { defineConfig } from 'prisma/config';

// Prisma's CLI reads this file. Herald applies migrations itself (src/db/migrator.ts),
// recording them exactly as `prisma migrate deploy` would, so either tool works.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/herald' },
});
