# Herald production image.
#
#   docker build -t herald .
#   docker run --env-file .env -e DATABASE_URL=postgresql://... -p 3000:3000 herald
#
# or, with Postgres alongside: `docker compose up --build` (see docker-compose.yml).

# Node 24, the active LTS line, is Herald's one runtime (package.json engines, .nvmrc); CI
# installs, tests, builds and smoke-tests on it too (.ci/run).
ARG NODE_VERSION=24

# ---------------------------------------------------------------------------
# deps: every dependency (dev ones too: the Prisma CLI and TypeScript are needed to
# build) and the generated Prisma client.
# ---------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
# Only what `npm ci` and its postinstall need, so this layer is rebuilt only when the
# dependencies or the schema change. The `postinstall` script
# (scripts/prisma-generate.mjs) runs `prisma generate` offline: it reads
# prisma.config.ts and prisma/schema.prisma and writes the client to src/generated/prisma.
# package.json's `allowScripts` approves install scripts only for the embedded-postgres
# binaries; production uses a real DATABASE_URL and never needs them, and the project's
# own postinstall is not a dependency script, so it always runs.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/prisma-generate.mjs ./scripts/prisma-generate.mjs
RUN npm ci

# ---------------------------------------------------------------------------
# build: compile TypeScript, then drop dev dependencies.
# ---------------------------------------------------------------------------
FROM deps AS build
COPY tsconfig.json ./
# .dockerignore keeps the host's src/generated out of the context, so this COPY merges
# into src/ without replacing the client generated above from this very schema.
COPY src ./src
# tsc compiles all of src/ (rootDir "src", outDir "dist"), including the generated
# Prisma client, to dist/ (dist/generated/prisma). The client's runtime comes from
# @prisma/client, a production dependency, so the Prisma CLI (a devDependency) can go.
# `npm prune` does not run the project's postinstall, so removing prisma is safe.
RUN npm run build \
 && npm prune --omit=dev

# ---------------------------------------------------------------------------
# runtime: production node_modules, compiled code and SQL migrations only.
# ---------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app

# package.json is needed at run time: its "type": "module" makes dist/*.js ES modules.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Herald applies migrations itself at start-up, under a Postgres advisory lock, from
# prisma/migrations resolved relative to dist/db/ (../../prisma/migrations), i.e.
# /app/prisma/migrations. schema.prisma and prisma.config.ts are not needed at run time.
COPY --from=build /app/prisma/migrations ./prisma/migrations

# Debian's ffmpeg converts voice notes the transcription endpoint does not take (AMR and
# 3GPP from MMS) to WAV (src/media/audio-converter.ts). From Debian rather than an npm
# package: it gets the distribution's security updates, and @ffmpeg-installer ships a
# 2018 build behind an install script.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/*

# The code stays root-owned and read-only to the app. Only the data directory is
# writable: without DATABASE_URL Herald falls back to an embedded Postgres under
# DATA_DIR (default .data, i.e. /app/.data), which is lost with the container unless
# a volume is mounted there. In production, set DATABASE_URL.
#
# /app/.data/spool is the inbound spool (INBOUND_SPOOL_DIR): webhooks that arrive while
# the database is away, fsync'd and answered 200, then replayed. It survives a restart
# of the same container, but not a new container: mount a volume there (compose does),
# so a message Twilio was told is safe is not lost with the container. Made here, owned
# by node, so that a named volume mounted on it starts out writable by the app.
RUN mkdir -p /app/.data/spool && chown -R node:node /app/.data

# The official image's unprivileged user (uid 1000).
USER node

EXPOSE 3000

# Slim images have no curl or wget; Node 24 has fetch. Shell form so ${PORT:-3000}
# is expanded by /bin/sh when the check runs, following a PORT override.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:${PORT:-3000}/healthz', { signal: AbortSignal.timeout(4000) }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"

# Exec form: no shell in between, so `docker stop`'s SIGTERM reaches node itself and
# Herald's shutdown handler can stop taking webhooks, let in-flight work finish and
# close the pool before the grace period runs out. (As PID 1, node would ignore a
# SIGTERM it had no handler for; docker-compose.yml also sets `init: true`.)
CMD ["node", "dist/server.js"]
