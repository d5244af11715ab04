# syntax=docker/dockerfile:1
# perpbot container: compiled JavaScript on Node 24 LTS, nothing compiled at run time and no compiler
# toolchain in either stage. The build stage installs everything, type-checks and compiles (tsc emit,
# `npm run build`; a tree that does not type-check never becomes an image), then prunes to production
# modules. The runtime stage gets the compiled tree at the app's root, those modules, the config, and
# nothing else.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: full install, type check + compile, production modules ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: nothing is compiled natively. The journal's SQLite driver on Node 24 is
# better-sqlite3 13 (npm alias better-sqlite3-napi: Node-API, prebuilt binaries in the package, no
# install script). better-sqlite3 12 is Node 20's driver: its install script would compile it from
# source with a C++ toolchain; it is never loaded on this image's Node and is removed below. The
# `prepare` build is run explicitly once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
# .dockerignore keeps node_modules, .git, dist, secrets and tests out of the context.
COPY . .
# bin/ is optional; make sure it exists so the runtime stage can always copy it.
RUN mkdir -p bin && npm run build
# Production modules only; the Node 20 driver goes; the Node 24 driver must load here.
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force \
  && rm -rf node_modules/better-sqlite3 \
  && node -e "require('better-sqlite3-napi')(':memory:').close()"

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# tini as PID 1 forwards SIGTERM/SIGINT to node and reaps zombies; slim images have no curl,
# so the health check below uses node itself.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
# The young generation's size is fixed when V8 sets up the heap, so it is a node option
# (src/cli/productionNodeOptions.ts says why 4 MiB; test/ops/dockerfile.test.ts pins it to that list).
ENV NODE_ENV=production NODE_OPTIONS="--max-semi-space-size=4"
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
# Code stays root-owned (the bot cannot rewrite itself). The compiled tree goes to the app's root
# (src/ and strategies/ hold JavaScript here), so the default strategies folder is the shipped one.
COPY --from=build /app/dist/src ./src
COPY --from=build /app/dist/strategies ./strategies
COPY --from=build /app/config ./config
COPY --from=build /app/bin ./bin
# The restart journal (ops.stateDir, relative to /app by default) is the only writable path besides
# /tmp; mount a volume here to keep it across container restarts. The image
# runs with a read-only root filesystem when both are mounted writable (deploy/ does so).
RUN mkdir -p /app/.perpbot-state && chown node:node /app/.perpbot-state
USER node
# Ops server (/livez, /readyz, /metrics, /status); must match ops.port in config. Inside a container
# it must bind 0.0.0.0 to be reachable through a published port (CMD below), so the bot requires
# PERPBOT_OPS_TOKEN (it exits 2 without it) and asks for it as a Bearer token on every endpoint but
# /livez. Publish the port on loopback only unless you mean otherwise:
#   docker run -e PERPBOT_OPS_TOKEN="$(openssl rand -hex 32)" -p 127.0.0.1:9464:9464 --env-file .env perpbot
# The .env file carries PERPS_URL, PERPS_WS_URL (the venue's WebSocket, on its own host; without it
# every input polls, with a warning), CATALOGUE_URL and the keys. The dashboard is GET / on this port
# (uPlot is served from the production dependencies).
EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/livez',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# SIGTERM starts the graceful shutdown (ops.shutdownTimeoutMs <= 10 s, inside Docker's default
# 10 s stop grace period); a second signal forces exit.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "src/cli/main.js", "run", "--live", "--ops-host", "0.0.0.0"]
