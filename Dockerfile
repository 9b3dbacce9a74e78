# The server's image: a build stage compiles src/ into dist/ from a fresh clone, and the
# runtime stage holds dist/ alone on Node.js. test/dockerfile.test.ts parses this file and
# reproduces both stages outside Docker; docs/containers.md quotes it whole.

# Node.js 26, the Active LTS line ('Lithium', supported until 2029-04-30; its first LTS
# release carries the October 2026 security fixes), on Debian 13 (trixie) slim. The tag
# pins the Node.js release; the official image rebuilds it for Debian security fixes, which
# a digest pin would hold back.
ARG NODE_IMAGE=node:26.13.0-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The lock file first, so the install layer is reused until the dependencies change.
COPY package.json package-lock.json ./
# --ignore-scripts: no package runs an install script, and `prepare` does not build before
# src/ is here; the build runs once, below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/
COPY src/ src/
RUN npm run build

FROM ${NODE_IMAGE}
WORKDIR /app
# dist/ runs with plain node: no node_modules, no package.json beside it, no dev dependencies.
COPY --from=build /app/dist/ dist/
# The mount point for DATA_DIR, owned by the user the server runs as, so that a named volume
# mounted here is writable.
RUN mkdir /data && chown node:node /data
# No NODE_ENV: neither the server nor node reads it. The server listens on every interface
# of the container; what reaches it is what `-p` publishes. It answers Host names that are
# IP addresses or localhost, and pages from loopback origins: behind a domain, set
# ALLOWED_HOSTS and CORS_ORIGINS, and set AUTH_TOKENS_FILE before publishing the port beyond
# this machine, or anyone who reaches it can write (docs/access.md).
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# JSON access lines on stdout, one object a line, for the engine's log collector.
ENV LOG_FORMAT=json
# The official image's unprivileged user, uid 1000.
USER node
# The slim image has no curl: node asks /healthz itself, on the port the server listens on.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, and no shell or entrypoint script in between: node is PID 1 and gets SIGTERM
# itself. Flags after the image name go to the server (docker run IMAGE --seed /seed.json).
ENTRYPOINT ["node", "dist/main.js"]
