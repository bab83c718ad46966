# syntax=docker/dockerfile:1
# Node 20, the major version CI tests on (package.json engines: >=20.18.1): the image runs
# what the tests ran. Move this and CI together.
# Build: compile TypeScript with the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# src/ holds the Lua scripts (src/store/redis/lua/); the build copies them into dist/.
COPY src ./src
COPY locales ./locales
# The Mini App's page (web/), bundled by esbuild into dist/web/.
COPY web ./web
RUN npm run build

# Run: production dependencies and the compiled code only, as a non-root user.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080
# A font for the words of the digest's chart (resvg draws with the system's fonts).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# An 8 MB young generation (per semi-space; V8's default grows it to 16 MB): with 4 MB, the
# objects of requests in flight outlived two scavenges, were promoted and died old, and
# scavenging took a fifth of the bot's CPU; 8 MB gives most of what 16 MB saves (CPU per
# update about a quarter lower than with 4 MB, 16 MB about a third) for half its memory
# (16 MB left the steady RSS with 10,000 pending payouts at 119.9 MB, the target 120;
# bench/pay-roundtrip.ts, bench/footprint.ts, docs/performance.md). --liftoff-only: undici's
# HTTP parser
# (llhttp, WebAssembly) stays on V8's baseline compiler; its optimizing compile of it raised
# the start-up peak by about 30 MB, for no CPU difference that shows (bench/footprint.ts).
CMD ["node", "--max-semi-space-size=8", "--liftoff-only", "dist/src/main.js", "start"]
